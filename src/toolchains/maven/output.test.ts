import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  failedCompileScope,
  failedGoal,
  firstErrorLine,
  forkFailure,
  parseDumpedThrowable,
  isDependencyResolutionFailure,
  needsOnlineRetry,
  parseCompileMessages,
} from './output.js';

const fixtures = path.resolve(import.meta.dirname, '../../../test/fixtures/maven-output');
const load = (name: string) => readFileSync(path.join(fixtures, name), 'utf8');

describe('Maven build output', () => {
  it('reads javac errors of maven-compiler-plugin 2.x once each, with file and line', () => {
    const log = load('compile-error-compiler-2.3.2.txt');
    const messages = parseCompileMessages(log);
    expect(messages).toHaveLength(9);
    expect(messages[0]).toEqual({
      file: '/work/project/src/main/java/org/json/simple/JsonArray.java',
      line: 72,
      column: 37,
      message: "';' expected",
    });
    expect(failedCompileScope(log)).toBe('main');
  });

  it('reads the 3.x format and a test-compile failure', () => {
    const log = [
      '[ERROR] COMPILATION ERROR : ',
      '[ERROR] /p/src/test/java/a/BTest.java:[10,5] cannot find symbol',
      '  symbol:   variable x',
      '[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.10.1:testCompile (default-testCompile) on project p: Compilation failure',
    ].join('\n');
    expect(parseCompileMessages(log)).toEqual([
      { file: '/p/src/test/java/a/BTest.java', line: 10, column: 5, message: 'cannot find symbol' },
    ]);
    expect(failedCompileScope(log)).toBe('test');
  });

  it('ignores compiler warnings', () => {
    const log = '[WARNING] /p/src/main/java/a/B.java:[3,8] deprecated API';
    expect(parseCompileMessages(log)).toEqual([]);
  });

  it('recognises Surefire reporting a dead test JVM, with its exit code', () => {
    expect(forkFailure(load('fork-crash-system-exit.txt'))).toEqual({
      kind: 'Died',
      reason: 'forked test JVM exited with code 3',
    });
    expect(forkFailure('[ERROR] Tests run: 3, Failures: 1')).toBeUndefined();
  });

  it('tells a provider error from a dead JVM and reads the dumped throwable', () => {
    expect(forkFailure(load('fork-provider-error.txt'))).toEqual({ kind: 'ProviderError' });
    expect(parseDumpedThrowable(load('provider-error.dump.txt'))).toEqual({
      exceptionType: 'java.lang.ExceptionInInitializerError',
      message: '',
      frames: expect.arrayContaining([
        'org.joda.time.chrono.TestCopticChronology.<clinit>(TestCopticChronology.java:48)',
      ]),
    });
  });

  it('tells dependency-resolution failures and offline misses apart', () => {
    const missing =
      '[ERROR] Failed to execute goal on project p: Could not resolve dependencies for project a:p:jar:1: Could not find artifact org.example:nope:jar:1.0 in central';
    expect(isDependencyResolutionFailure(missing)).toBe(true);
    expect(needsOnlineRetry(missing)).toBe(false);
    const offline =
      '[ERROR] Failed to execute goal on project p: Could not resolve dependencies: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode and the artifact org.example:nope:jar:1.0 has not been downloaded from it before.';
    expect(needsOnlineRetry(offline)).toBe(true);
  });

  describe("a failed build's one line is its own first real error", () => {
    it('a compiler message without file and line, not the COMPILATION ERROR header', () => {
      expect(firstErrorLine(load('ladder-unpinned-compiler-3.1.txt'))).toBe(
        'Source option 5 is no longer supported. Use 7 or later.',
      );
    });

    it("the failed goal and its own message, without Maven's framing", () => {
      expect(firstErrorLine(load('ladder-release-6.txt'))).toBe(
        'org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile: Fatal error compiling: error: release version 6 not supported',
      );
      expect(firstErrorLine(load('ladder-bundle-manifest-jdk17.txt'))).toBe(
        'org.apache.felix:maven-bundle-plugin:4.1.0:manifest: Execution bundle-manifest of goal org.apache.felix:maven-bundle-plugin:4.1.0:manifest failed. ConcurrentModificationException',
      );
    });

    it('a javac error with its file and line', () => {
      expect(firstErrorLine(load('ladder-toarray-ambiguous.txt'))).toMatch(
        /BagTest\.java:\[24,55\] reference to toArray is ambiguous$/,
      );
    });

    it('names the goal that failed', () => {
      expect(failedGoal(load('enforcer-rule-failed.txt'))).toEqual({
        execution: 'enforce-java',
        goal: 'org.apache.maven.plugins:maven-enforcer-plugin:3.0.0:enforce',
        line: 'org.apache.maven.plugins:maven-enforcer-plugin:3.0.0:enforce: Some Enforcer rules have failed. Look above for specific messages explaining why the rule failed.',
      });
      expect(failedGoal('[ERROR] COMPILATION ERROR :')).toBeUndefined();
    });
  });
});
