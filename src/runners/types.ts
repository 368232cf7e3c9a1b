import type { SingleVerdict, Verdict } from '../core/verdict.js';
import type { BuildSettings } from '../toolchains/build-settings.js';
import type { ChangedSource, RawTrace, TestOutcome } from '../toolchains/jvm/runner.js';

export type RunnerName = 'maven' | 'jvm';

/** A project directory to build and test, and the sources in it that differ from its build. */
export interface RunTarget {
  projectDir: string;
  build: BuildSettings;
  /**
   * Sources changed since the directory was compiled. The warm JVM compiles just these into an
   * overlay; Maven builds the whole tree (compiling copies it afresh).
   */
  changed: ChangedSource[];
}

export type CompileResult =
  | {
      kind: 'Compiled';
      durationMs: number;
      /** Time spent copying the tree before building it (0 when built in place). */
      copyMs: number;
      /** Whether the build needed nothing from the network. */
      offline: boolean;
      /** The directory whose build the runs use. */
      workDir: string;
    }
  | { kind: 'CompileFailed'; verdict: SingleVerdict; durationMs: number; copyMs: number };

export interface TestRequest {
  target: RunTarget;
  testClass: string;
  /**
   * Only these test methods of the class (by name), for a run that needs just the tests a change
   * can reach; absent, the whole class runs. Never empty: an empty selection would run nothing.
   */
  methods?: readonly string[];
  /** Limit for the test run; the time-limit wrapper sets it from its policy when absent. */
  timeoutMs?: number;
  /** Limit for compiling, when a run has to compile first. */
  compileTimeoutMs?: number;
  /** Record the production methods entered, in first-hit order (per test when asked). */
  trace?: { perTest: boolean };
  /** Flags for the test JVM on top of the recipe's (a coverage agent); Maven only. */
  jvmArgs?: readonly string[];
}

export interface TestRunResult {
  verdict: SingleVerdict;
  /** The tests' own time, as the runner measured it (what time limits are derived from). */
  testMs: number;
  /** The run's wall time, without compiling. */
  durationMs: number;
  compileMs: number;
  /** Set when the request asked for a trace and the runner could record one. */
  trace?: RawTrace;
  tests?: TestOutcome[];
}

/** A class run several times: every run, folded into one verdict (Flaky when they disagree). */
export interface RepeatedRunResult {
  verdict: Verdict;
  runs: TestRunResult[];
}

/**
 * Builds a project directory and runs one test class in it; Maven (the ground truth) and the warm
 * JVM (the fast path) are the two implementations. Time limits, reruns and tracing are wrappers
 * around a runner (see wrappers.ts), so each policy is written once.
 */
export interface TestRunner {
  kind: 'runner';
  name: RunnerName;
  /** Whether `trace` requests are honoured. */
  traces: boolean;
  /**
   * A directory as it stands on disk, as this runner must build it: the warm JVM compiles the
   * sources newer than their classes (and needs the classes); Maven builds the whole tree.
   */
  targetOf(projectDir: string, build: BuildSettings): Promise<RunTarget>;
  compile(target: RunTarget, timeoutMs?: number): Promise<CompileResult>;
  /** Compiles first when the target has not been compiled; a compile failure is the verdict. */
  run(request: TestRequest): Promise<TestRunResult>;
  close(): Promise<void>;
}
