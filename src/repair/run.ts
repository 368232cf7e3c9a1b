import { baselineClass } from '../project/baseline.js';
import type { ProjectState } from '../project/state.js';
import { compiledSources, type WorkingCopy } from '../project/working-copy.js';
import { timeLimit } from '../runners/time-limits.js';
import type { TestRunner } from '../runners/types.js';
import { withReruns } from '../runners/wrappers.js';
import { instanceTestClasses } from './instance.js';
import type { ClassRun } from './judge.js';
import type { RepairSubject } from './project.js';
import type { SingleVerdict } from '../core/verdict.js';

export type TreeRun =
  | { kind: 'Ran'; classes: ClassRun[] }
  /** The tree did not build: no test of it was judged. */
  | { kind: 'CompileFailed'; verdict: SingleVerdict };

/**
 * Every test class an instance names, on one state of it, `runs` times each (fresh Maven runs
 * fold into one verdict, Flaky when they disagree); only the named methods of each class run.
 */
export async function runInstanceTests(
  subject: RepairSubject,
  state: ProjectState,
  setup: { runner: TestRunner; copy: WorkingCopy; runs: number },
): Promise<TreeRun> {
  const changed = await setup.copy.checkout(state);
  const { project } = subject;
  const target = {
    projectDir: setup.copy.root,
    build: project.build,
    changed: compiledSources(changed),
  };
  const compiled = await setup.runner.compile(target);
  if (compiled.kind === 'CompileFailed')
    return { kind: 'CompileFailed', verdict: compiled.verdict };
  const repeated = withReruns(setup.runner, setup.runs);
  const classes: ClassRun[] = [];
  for (const [testClass, methods] of instanceTestClasses(subject.instance)) {
    const normalMs = project.baseline
      ? baselineClass(project.baseline, testClass)?.durationMs
      : undefined;
    const result = await repeated.run({
      target,
      testClass,
      methods,
      timeoutMs: timeLimit(setup.runner.name, 'run', normalMs),
    });
    classes.push({ testClass, verdict: result.verdict });
  }
  return { kind: 'Ran', classes };
}
