import type { CompileMessage } from '../../core/verdict.js';

/*
 * Readers of Maven's own console output. They run only on the build step (before any test code
 * runs) or to tell apart kinds of non-passing outcomes; a Passed or TestFailed verdict never
 * comes from console text, only from exit codes and Surefire XML.
 */

// Maven colours output unless told not to; escape codes would break the line parsers.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

const COMPILER_MESSAGE =
  /^(?:\[(?:ERROR|WARNING)\]\s+)?(\/[^:\n]+\.java):\[(\d+)(?:,(\d+))?\]\s+(?:error:\s+)?(.+)$/;

/** javac errors reported by maven-compiler-plugin (2.x and 3.x formats), deduplicated. */
export function parseCompileMessages(output: string): CompileMessage[] {
  const seen = new Set<string>();
  const messages: CompileMessage[] = [];
  for (const rawLine of stripAnsi(output).split(/\r?\n/)) {
    const line = rawLine.trimEnd();
    if (line.startsWith('[WARNING]')) continue;
    const match = COMPILER_MESSAGE.exec(line);
    if (!match) continue;
    const key = `${match[1]}:${match[2]}:${match[3]}:${match[4]}`;
    if (seen.has(key)) continue;
    seen.add(key);
    messages.push({
      file: match[1]!,
      line: Number(match[2]),
      column: match[3] === undefined ? null : Number(match[3]),
      message: match[4]!.trim(),
    });
  }
  return messages;
}

/** Which compilation failed, from Maven's "Failed to execute goal ...:testCompile" line. */
export function failedCompileScope(output: string): 'main' | 'test' {
  return /Failed to execute goal [^\n]*:testCompile\b/.test(stripAnsi(output)) ? 'test' : 'main';
}

const RESOLUTION_MARKERS = [
  /Could not resolve dependencies for project/,
  /Failed to read artifact descriptor/,
  /could not be resolved/i,
  /Could not find artifact/,
  /Non-resolvable parent POM/,
  /Plugin [^\n]* or one of its dependencies could not be resolved/,
  /Unresolveable build extension/,
];

export function isDependencyResolutionFailure(output: string): boolean {
  const text = stripAnsi(output);
  return RESOLUTION_MARKERS.some((marker) => marker.test(text));
}

/** Offline mode could not find something in the local repository; an online retry may. */
export function needsOnlineRetry(output: string): boolean {
  const text = stripAnsi(output);
  return /offline mode|has not been downloaded from it before|Cannot access [^\n]* in offline mode/i.test(
    text,
  );
}

/**
 * Surefire's own report that the fork went wrong. `Died`: the test JVM ended (System.exit, a
 * crash, a kill). `ProviderError`: the JVM lived but the test provider threw, e.g. a test
 * class whose static initialiser failed under the JUnit 3 provider; Surefire then writes the
 * throwable to a `.dump` file in the reports directory.
 */
export type ForkFailure = { kind: 'Died'; reason: string } | { kind: 'ProviderError' };

export function forkFailure(output: string): ForkFailure | undefined {
  const text = stripAnsi(output);
  const exit = /Process Exit Code: (\d+)/.exec(text);
  if (exit) return { kind: 'Died', reason: `forked test JVM exited with code ${exit[1]}` };
  if (/The forked VM terminated|Crashed tests:/.test(text)) {
    return { kind: 'Died', reason: 'forked test JVM terminated unexpectedly' };
  }
  if (/There was an error in the forked process|SurefireBooterForkException/.test(text)) {
    return { kind: 'ProviderError' };
  }
  return undefined;
}

/** The throwable in a Surefire `.dump` file: its type, message and top frames. */
export function parseDumpedThrowable(
  dump: string,
): { exceptionType: string; message: string; frames: string[] } | undefined {
  const lines = dump.split(/\r?\n/).filter((line) => !line.startsWith('# Created at'));
  const header = lines.findIndex((line) =>
    /^[\w$.]+(Exception|Error|Throwable)\b/.test(line.trim()),
  );
  if (header === -1) return undefined;
  const [exceptionType, ...rest] = lines[header]!.trim().split(': ');
  const frames = lines
    .slice(header + 1)
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at '))
    .slice(0, 8)
    .map((line) => line.slice(3));
  return { exceptionType: exceptionType!, message: rest.join(': '), frames };
}

/** Maven's own words around an error, which never say what went wrong. */
const NOISE =
  /^(->|To see the full|Re-run Maven|For more information|\[Help \d+\]|Help 1|COMPILATION ERROR\b)/;

/** The goal that failed and its message, from `Failed to execute goal G (execution) on project P: M`. */
const FAILED_GOAL =
  /^Failed to execute goal (\S+)(?: \([^)]*\))? on project [^:]+: (.*?)(?: -> \[Help \d+\])?$/;

/** A message that only says the compiler failed; the compiler's own lines say why. */
const BARE_COMPILATION_FAILURE = /^(Compilation failure:?\s*)+$/;

/** An `[ERROR]` line in one line: a goal failure as `goal: message`, any other as it is. */
export function errorLineSummary(line: string): string {
  const text = line.replace(/^\[(?:ERROR|WARNING)\]\s*/, '').trim();
  const goal = FAILED_GOAL.exec(text);
  return goal ? `${goal[1]}: ${goal[2]}` : text;
}

/** The goal that failed (`group:artifact:version:goal`) and its line, if one did. */
export function failedGoal(
  output: string,
): { goal: string; execution?: string; line: string } | undefined {
  for (const line of stripAnsi(output).split(/\r?\n/)) {
    const match = /^\[ERROR\]\s+Failed to execute goal (\S+)(?: \(([^)]+)\))?/.exec(line);
    if (match) {
      return {
        goal: match[1]!,
        ...(match[2] ? { execution: match[2] } : {}),
        line: errorLineSummary(line),
      };
    }
  }
  return undefined;
}

/**
 * The build's own first real error, in one line: a compiler message (`Source option 5 is no longer
 * supported`), or the failed goal with its plugin's message; Maven's headers and hints are passed
 * over, and a goal failure that only says "Compilation failure" gives way to the lines that say why.
 */
export function firstErrorLine(output: string): string {
  for (const line of stripAnsi(output).split(/\r?\n/)) {
    const match = /^\[ERROR\]\s+(.*\S)/.exec(line);
    if (!match || NOISE.test(match[1]!)) continue;
    const goal = FAILED_GOAL.exec(match[1]!);
    if (goal && BARE_COMPILATION_FAILURE.test(goal[2]!)) continue;
    return errorLineSummary(match[1]!);
  }
  const lastLine = stripAnsi(output).trim().split(/\r?\n/).pop();
  return lastLine || 'no output';
}
