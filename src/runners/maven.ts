import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CacheLayout } from '../core/cache.js';
import { copyProjectTree, makeTempDir, removeTree, sha256Text } from '../core/fs.js';
import type { Toolchain, ToolchainContext } from '../toolchains/types.js';
import type { CompileResult, RunTarget, TestRunner } from './types.js';

const DEFAULT_COMPILE_TIMEOUT_MS = 1_800_000;

/** A disposable copy of a target, built by the toolchain, with what its runs need. */
interface BuiltCopy {
  key: string;
  dir: string;
  copy: string;
  result: CompileResult;
  context: ToolchainContext;
}

/**
 * The directory and the text of the sources a caller says changed. Maven builds the whole tree,
 * so `compile` always copies afresh; a run reuses the copy of the last compile of the same key.
 */
async function targetKey(target: RunTarget): Promise<string> {
  const texts = await Promise.all(
    target.changed.map(async (source) => [source.path, await readFile(source.path, 'utf8')]),
  );
  return sha256Text(JSON.stringify([path.resolve(target.projectDir), target.build, texts]));
}

export interface MavenRunnerOptions {
  /** Leave the copies in place at close, for inspection. */
  keep?: boolean;
}

/**
 * The ground truth as a test runner: a disposable copy of the directory, the toolchain's compile
 * step (`mvn test-compile`, its own step, so a compile error is never a test failure), then one
 * Surefire run per request, judged from the exit code and fresh XML reports. Offline first; the
 * toolchain goes online only when the local repository lacks something.
 */
export function mavenTestRunner(
  toolchain: Toolchain,
  cache: CacheLayout,
  options: MavenRunnerOptions = {},
): TestRunner {
  const copies = new Map<string, BuiltCopy>();

  async function build(target: RunTarget, timeoutMs?: number): Promise<BuiltCopy> {
    const key = await targetKey(target);
    const existing = copies.get(target.projectDir);
    if (existing && !options.keep) await removeTree(existing.dir);
    const dir = await makeTempDir('replay');
    const copy = path.join(dir, 'project');
    const copyStarted = performance.now();
    await copyProjectTree(target.projectDir, copy);
    const copyMs = Math.round(performance.now() - copyStarted);
    const context = { repository: cache.mavenRepo, offline: true };
    const compiled = await toolchain.compile(
      copy,
      target.build,
      context,
      timeoutMs ?? DEFAULT_COMPILE_TIMEOUT_MS,
    );
    const result: CompileResult =
      compiled.kind === 'Failed'
        ? {
            kind: 'CompileFailed',
            verdict: compiled.verdict,
            durationMs: compiled.durationMs,
            copyMs,
          }
        : {
            kind: 'Compiled',
            durationMs: compiled.durationMs,
            copyMs,
            offline: compiled.offline,
            workDir: copy,
          };
    const built = {
      key,
      dir,
      copy,
      result,
      context: { ...context, offline: compiled.kind === 'Compiled' ? compiled.offline : true },
    };
    copies.set(target.projectDir, built);
    return built;
  }

  return {
    kind: 'runner',
    name: 'maven',
    traces: false,
    targetOf: async (projectDir, build) => ({ projectDir, build, changed: [] }),
    async compile(target, timeoutMs) {
      return (await build(target, timeoutMs)).result;
    },
    async run(request) {
      if (request.trace) throw new Error('the maven runner cannot trace');
      if (request.timeoutMs === undefined) {
        throw new Error('the maven runner needs a time limit: wrap it with withTimeLimit');
      }
      const kept = copies.get(request.target.projectDir);
      const built =
        kept?.key === (await targetKey(request.target))
          ? kept
          : await build(request.target, request.compileTimeoutMs);
      if (built.result.kind === 'CompileFailed') {
        return {
          verdict: built.result.verdict,
          testMs: 0,
          durationMs: 0,
          compileMs: built.result.durationMs,
        };
      }
      const run = await toolchain.runTests(built.copy, request.target.build, built.context, {
        selection: request.methods
          ? toolchain.selectMethods(request.testClass, request.methods)
          : toolchain.selectClass(request.testClass),
        timeoutMs: request.timeoutMs,
        jvmArgs: request.jvmArgs,
      });
      return {
        verdict: run.verdict,
        testMs: run.durationMs,
        durationMs: run.durationMs,
        compileMs: 0,
      };
    },
    async close() {
      if (!options.keep) for (const built of copies.values()) await removeTree(built.dir);
      copies.clear();
    },
  };
}
