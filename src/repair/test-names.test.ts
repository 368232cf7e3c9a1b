import { describe, expect, it } from 'vitest';
import { hashTestId, readTestName } from './test-names.js';

const method = (id: string) => ({ kind: 'Method', id });

describe('readTestName', () => {
  it.each([
    ['p.q.FooTest#testBar', 'p.q.FooTest#testBar'],
    ['p.q.FooTest::testBar', 'p.q.FooTest#testBar'],
    ['testBar(p.q.FooTest)', 'p.q.FooTest#testBar'],
    ['testBar[3](p.q.FooTest)', 'p.q.FooTest#testBar'],
    ['p.q.FooTest.testBar()', 'p.q.FooTest#testBar'],
    ['p.q.FooTest.testBar(String, int)[2]', 'p.q.FooTest#testBar'],
    ['p.q.FooTest > testBar()', 'p.q.FooTest#testBar'],
    ['p.q.FooTest > testBar', 'p.q.FooTest#testBar'],
    ['p.q.FooTest > testBar[1]', 'p.q.FooTest#testBar'],
    ['p.q.FooTest > testBar(String) > [1] a, b', 'p.q.FooTest#testBar'],
    ['p.q.FooTest > Inner > Deeper > testBar()', 'p.q.FooTest$Inner$Deeper#testBar'],
    ['  p.q.FooTest#testBar  ', 'p.q.FooTest#testBar'],
  ])('reads %j as a method', (raw, id) => {
    expect(readTestName(raw)).toEqual(method(id));
  });

  it('leaves a bare dotted name to the sources: it may be a class or a method', () => {
    expect(readTestName('p.q.FooTest')).toEqual({ kind: 'Dotted', name: 'p.q.FooTest' });
    expect(readTestName('p.q.FooTest.testBar')).toEqual({
      kind: 'Dotted',
      name: 'p.q.FooTest.testBar',
    });
  });

  it.each([
    'parses an empty document',
    'p.q.FooTest > parses an empty document',
    'p.q.FooTest > Inner > Deeper',
    ':core:test',
    'core:compileTestJava',
    'testBar(String',
  ])('cannot read %j', (raw) => {
    expect(readTestName(raw)).toEqual({ kind: 'Unreadable' });
  });
});

describe('hashTestId', () => {
  it("reads JUnit's Class::method as Class#method and leaves anything else as it is", () => {
    expect(hashTestId('org.apache.commons.csv.CSVParserTest::testGetLineNumberWithCR')).toBe(
      'org.apache.commons.csv.CSVParserTest#testGetLineNumberWithCR',
    );
    expect(hashTestId('p.FooTest#bar')).toBe('p.FooTest#bar');
    expect(hashTestId('p.FooTest.bar')).toBe('p.FooTest.bar');
    expect(hashTestId('a::b::c')).toBe('a::b::c');
  });
});
