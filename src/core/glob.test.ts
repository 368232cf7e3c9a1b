import { describe, expect, it } from 'vitest';
import { globToRegExp, surefireSelects } from './glob.js';

describe('globToRegExp', () => {
  it('lets ** cross directories and * stay within one', () => {
    const failing = globToRegExp('src/test/**/failing/**');
    expect(failing.test('src/test/java/com/x/failing/FooTest.java')).toBe(true);
    expect(failing.test('src/main/java/com/x/failing/Foo.java')).toBe(false);
    expect(globToRegExp('src/*.txt').test('src/a/b.txt')).toBe(false);
    expect(globToRegExp('**/*.bin').test('top.bin')).toBe(true);
  });
});

describe('surefireSelects', () => {
  it('applies includes and ! excludes the way -Dtest does', () => {
    const selection = '**/*Test,!**/*PerformanceTest,!**/*AbstractTest';
    expect(surefireSelects(selection, 'org.apache.commons.codec.binary.Base64Test')).toBe(true);
    expect(
      surefireSelects(selection, 'org.apache.commons.codec.binary.Base64PerformanceTest'),
    ).toBe(false);
    expect(surefireSelects(selection, 'org.apache.commons.codec.Helper')).toBe(false);
  });

  it('accepts fully qualified names and bare simple-name patterns', () => {
    expect(
      surefireSelects('org.joda.time.TestDateTime_Basics', 'org.joda.time.TestDateTime_Basics'),
    ).toBe(true);
    expect(surefireSelects('Test*,!TestAll*', 'org.joda.time.TestAllPackages')).toBe(false);
    expect(surefireSelects('Test*,!TestAll*', 'org.joda.time.TestInterval_Basics')).toBe(true);
  });
});
