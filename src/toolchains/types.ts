import type { SingleVerdict } from '../core/verdict.js';
import type { BuildSettings } from './build-settings.js';
import type { SuiteReport } from '../core/test-reports.js';

export interface ToolchainContext {
  /** Local artifact repository shared by every project in the cache. */
  repository: string;
  /** Use only what the repository already holds; toolchains retry online when it lacks something. */
  offline: boolean;
}

export type CompileOutcome =
  | { kind: 'Compiled'; durationMs: number; offline: boolean }
  | { kind: 'Failed'; verdict: SingleVerdict; durationMs: number; log: string };

export interface TestRun {
  verdict: SingleVerdict;
  /** Per-class reports, for callers that need more than the verdict (the baseline). */
  reports: SuiteReport[];
  durationMs: number;
  command: string;
  log: string;
}

export interface TestRunRequest {
  /** Test-selection expression in the toolchain's syntax (a class name or patterns). */
  selection?: string;
  /** Flags for the test JVM on top of the recipe's (a Java agent, say); none holds whitespace. */
  jvmArgs?: readonly string[];
  timeoutMs: number;
}

/** Builds a project and runs its tests; one plugin per build system. */
export interface Toolchain {
  kind: 'toolchain';
  name: string;
  /** Whether a directory is a project of this build system. */
  detect(projectDir: string): Promise<boolean>;
  compile(
    projectDir: string,
    build: BuildSettings,
    context: ToolchainContext,
    timeoutMs: number,
  ): Promise<CompileOutcome>;
  runTests(
    projectDir: string,
    build: BuildSettings,
    context: ToolchainContext,
    request: TestRunRequest,
  ): Promise<TestRun>;
  /** The selection that runs exactly one test class, nested test classes included. */
  selectClass(testClass: string): string;
  /** The selection that runs only the named test methods of one test class. */
  selectMethods(testClass: string, methods: readonly string[]): string;
  /** The command a person would type to replay one test class (recorded in cases). */
  replayCommand(build: BuildSettings, testClass: string): string;
  /** Version strings of the tools used, for provenance. */
  versions(): Promise<Record<string, string>>;
}
