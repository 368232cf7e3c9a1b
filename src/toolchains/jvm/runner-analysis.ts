import os, { availableParallelism } from 'node:os';
import { z } from 'zod';
import type { CacheLayout } from '../../core/cache.js';
import { jdkTool } from '../maven/maven.js';
import { lastLine } from '../../core/process.js';
import { JvmHelper, type HelperFault } from './helper.js';
import type { AnalysisName } from './protocol.js';
import { runnerClasspath, type RunnerClasspath } from './setup.js';

/*
 * The runner's javac analyses of one source file (SourceModel, Slicer in jvm/runner) share one
 * protocol: a request naming the file, its class path and release; the analysis's answer, or
 * `{kind: 'Failed', reason}` when the analysis itself could not run. They run in warm runner JVMs
 * (the `analyse` request of protocol.ts).
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

/**
 * Warm runner JVMs that answer analyses, shared by the process: a fresh JVM per analysis spends
 * most of its time starting and warming javac. At most one per core; an analysis waits for one
 * free. A JVM that times out or dies is started again for the next analysis.
 */
class AnalysisJvms {
  private readonly idle: JvmHelper[] = [];
  private readonly waiting: ((helper: JvmHelper) => void)[] = [];
  private readonly all: JvmHelper[] = [];

  constructor(private readonly runner: RunnerClasspath) {
    process.once('exit', () => {
      for (const helper of this.all) helper.stopNow();
    });
  }

  async use<T>(work: (helper: JvmHelper) => Promise<T>): Promise<T> {
    const helper = this.idle.pop() ?? this.started() ?? (await this.freed());
    try {
      return await work(helper);
    } finally {
      const next = this.waiting.shift();
      if (next) next(helper);
      else this.idle.push(helper);
    }
  }

  private started(): JvmHelper | undefined {
    if (this.all.length >= availableParallelism()) return undefined;
    const helper = new JvmHelper(os.tmpdir(), jdkTool('java'), [], this.runner, true);
    this.all.push(helper);
    return helper;
  }

  private freed(): Promise<JvmHelper> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}

const pools = new Map<string, AnalysisJvms>();

function describeFault(fault: HelperFault): string {
  switch (fault.kind) {
    case 'Timeout':
      return fault.startup ? 'its JVM did not start within 60 s' : 'timed out';
    case 'Exited':
      return `its JVM ended (${fault.signal ?? `exit ${fault.code}`}): ${lastLine(fault.stderr)}`;
    case 'ProtocolFault':
      return fault.reason;
  }
}

/** Runs the runner's analysis on `request` in a warm JVM and reads its answer with `answerSchema`. */
export async function runRunnerAnalysis<Answer>(
  analysis: AnalysisName,
  request: JavacFileRequest,
  answerSchema: z.ZodType<Answer>,
  cache: CacheLayout,
): Promise<RunnerAnalysisOutcome<Answer>> {
  const runner = await runnerClasspath(cache);
  const key = JSON.stringify(runner);
  let pool = pools.get(key);
  if (!pool) pools.set(key, (pool = new AnalysisJvms(runner)));
  const outcome = await pool.use((helper) =>
    helper.request(
      {
        op: 'analyse',
        analysis,
        request: { ...request, release: javacRelease(request.release) },
      },
      ANALYSIS_TIMEOUT_MS,
    ),
  );
  if (outcome.kind !== 'Answered') {
    return { kind: 'Failed', reason: `${analysis} did not finish: ${describeFault(outcome)}` };
  }
  if (outcome.answer.kind === 'Error') {
    return { kind: 'Failed', reason: `${analysis} did not finish: ${outcome.answer.message}` };
  }
  const answer = outcome.answer.answer;
  const failed = FailedSchema.safeParse(answer);
  if (failed.success) return failed.data;
  return { kind: 'Answered', answer: answerSchema.parse(answer) };
}
