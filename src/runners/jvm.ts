import path from 'node:path';
import type { CacheLayout } from '../core/cache.js';
import { UserError } from '../core/errors.js';
import { exists } from '../core/fs.js';
import { JvmRunner, staleSources, type JvmRunRequest } from '../toolchains/jvm/runner.js';
import { projectLayout } from '../toolchains/layout.js';
import type { RunTarget, TestRequest, TestRunner } from './types.js';

function compileRequest(target: RunTarget, compileTimeoutMs?: number) {
  return {
    projectDir: target.projectDir,
    build: target.build,
    sources: target.changed,
    ...(compileTimeoutMs !== undefined ? { compileTimeoutMs } : {}),
  };
}

/** The runner JVM reads an empty method list as the whole class: a selection is never empty. */
function selectedMethods(methods: readonly string[]): string[] {
  if (methods.length === 0) throw new Error('an empty method selection would run no test');
  return [...methods];
}

/**
 * The fast path as a test runner: the directory's compiled classes stay as they are; the changed
 * sources are compiled into an overlay, and the class runs in a warm JVM, in a fresh class loader.
 * `shared` lets several runners (and stages) use one pool of warm JVMs; closing this runner then
 * leaves the pool running.
 */
export function jvmTestRunner(cache: CacheLayout, shared?: JvmRunner): TestRunner {
  const jvm = shared ?? new JvmRunner(cache);
  return {
    kind: 'runner',
    name: 'jvm',
    traces: true,
    async targetOf(projectDir, build) {
      const layout = projectLayout(build);
      for (const dir of [layout.mainClasses, layout.testClasses]) {
        const full = path.join(projectDir, dir);
        if (!(await exists(full))) {
          throw new UserError(
            `the jvm runner needs compiled classes, and ${full} is missing: run 'mvn test-compile' there or use --runner maven`,
          );
        }
      }
      return { projectDir, build, changed: await staleSources(projectDir, build) };
    },
    async compile(target, timeoutMs) {
      const compiled = await jvm.compile(compileRequest(target, timeoutMs));
      return compiled.kind === 'Failed'
        ? {
            kind: 'CompileFailed',
            verdict: compiled.verdict,
            durationMs: compiled.compileMs,
            copyMs: 0,
          }
        : {
            kind: 'Compiled',
            durationMs: compiled.compileMs,
            copyMs: 0,
            offline: true,
            workDir: target.projectDir,
          };
    },
    async run(request: TestRequest) {
      // Its JVMs are started once and shared, so per-run JVM flags have nowhere to go.
      if (request.jvmArgs?.length)
        throw new Error('the jvm runner cannot take JVM arguments per run');
      if (request.timeoutMs === undefined) {
        throw new Error('the jvm runner needs a time limit: wrap it with withTimeLimit');
      }
      const jvmRequest: JvmRunRequest = {
        ...compileRequest(request.target, request.compileTimeoutMs),
        testClass: request.testClass,
        timeoutMs: request.timeoutMs,
        ...(request.methods ? { methods: selectedMethods(request.methods) } : {}),
        ...(request.trace ? { trace: true, perTest: request.trace.perTest } : {}),
      };
      const result = await jvm.run(jvmRequest);
      return {
        verdict: result.verdict,
        testMs: result.timings.testMs,
        durationMs: result.timings.wallMs - result.timings.compileMs,
        compileMs: result.timings.compileMs,
        ...(result.trace ? { trace: result.trace } : {}),
        ...(result.tests ? { tests: result.tests } : {}),
      };
    },
    async close() {
      if (!shared) await jvm.close();
    },
  };
}
