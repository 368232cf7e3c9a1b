import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { CacheLayout } from '../../core/cache.js';
import { makeTempDir, removeTree } from '../../core/fs.js';
import { runProcess } from '../../core/process.js';
import { jdkTool } from '../maven/maven.js';
import { runnerClasspath } from './setup.js';

/*
 * The runner's javac analyses of one source file (SourceModel, Slicer in jvm/runner) share one
 * protocol: a JSON request file named by the only argument, the answer written to the request's
 * `output`, `{kind: 'Failed', reason}` there when the analysis itself could not run.
 */

/** What every analysis is asked: one file, compiled as its project compiles it. */
export interface JavacFileRequest {
  file: string;
  /** The classes the file compiles against: the project's own classes and its dependencies. */
  classpath: string[];
  /** The project's `--release` level, so types and APIs are those of its Java version. */
  release: string | null;
}

/** A compile error javac found in the file (or in what it needs). */
export const CompileErrorSchema = z.strictObject({
  file: z.string().nullable(),
  line: z.number().int(),
  column: z.number().int(),
  message: z.string(),
});
export type CompileError = z.infer<typeof CompileErrorSchema>;

export type RunnerAnalysisOutcome<Answer> =
  | { kind: 'Answered'; answer: Answer }
  /** The analysis itself could not run (not a compile error of the file: those are answered). */
  | { kind: 'Failed'; reason: string };

const ANALYSIS_TIMEOUT_MS = 120_000;
/** The oldest `--release` JDK 17's javac accepts. */
const OLDEST_RELEASE = 7;

/** `--release` for a class-file level such as `1.6` or `11`; older than javac knows counts as 8. */
export function javacRelease(level: string | null): string | null {
  if (level === null) return null;
  const major = Number(level.replace(/^1\./, ''));
  if (!Number.isInteger(major)) return null;
  return String(major < OLDEST_RELEASE ? 8 : major);
}

const FailedSchema = z.strictObject({ kind: z.literal('Failed'), reason: z.string() });

/** Runs the runner's `mainClass` on `request` and reads its answer with `answerSchema`. */
export async function runRunnerAnalysis<Answer>(
  mainClass: string,
  request: JavacFileRequest,
  answerSchema: z.ZodType<Answer>,
  cache: CacheLayout,
): Promise<RunnerAnalysisOutcome<Answer>> {
  const runner = await runnerClasspath(cache);
  const dir = await makeTempDir('runner-analysis');
  try {
    const requestFile = path.join(dir, 'request.json');
    const output = path.join(dir, 'answer.json');
    await writeFile(
      requestFile,
      JSON.stringify({ ...request, release: javacRelease(request.release), output }),
    );
    const run = await runProcess(
      jdkTool('java'),
      ['-cp', runner.classpath.join(':'), mainClass, requestFile],
      { timeoutMs: ANALYSIS_TIMEOUT_MS },
    );
    if (run.exitCode !== 0) {
      const why = run.timedOut ? 'timed out' : run.stderr.trim().split('\n')[0] || 'no output';
      return { kind: 'Failed', reason: `${mainClass} did not finish: ${why}` };
    }
    const answer: unknown = JSON.parse(await readFile(output, 'utf8'));
    const failed = FailedSchema.safeParse(answer);
    if (failed.success) return failed.data;
    return { kind: 'Answered', answer: answerSchema.parse(answer) };
  } finally {
    await removeTree(dir);
  }
}
