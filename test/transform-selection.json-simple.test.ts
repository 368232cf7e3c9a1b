import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { makeTempDir } from '../src/core/fs.js';
import { plainSink } from '../src/events/render.js';
import { changedMembers } from '../src/lang/java/changed-members.js';
import { loadJavaGrammar, withJavaTrees } from '../src/lang/java/syntax.js';
import {
  pristineState,
  resolveFetchedProject,
  type FetchedProjectRef,
} from '../src/project/project.js';
import { withPatch } from '../src/project/state.js';
import { compiledSources, WorkingCopy } from '../src/project/working-copy.js';
import { jvmTestRunner } from '../src/runners/jvm.js';
import { withTimeLimit, withTracing } from '../src/runners/wrappers.js';
import { witnessContexts } from '../src/stages/2-inject/contexts.js';
import type { InjectionRecord } from '../src/stages/2-inject/records.js';
import { deterministicSource } from '../src/stages/3-transform/candidates.js';
import { operatorFor } from '../src/stages/3-transform/operators/index.js';
import { testId, tracedTests } from '../src/stages/3-transform/selection.js';
import { loadTransformSpecs, selectTransforms } from '../src/stages/3-transform/spec.js';
import {
  createTransformer,
  type Step,
  type TransformOptions,
  type TransformRecord,
} from '../src/stages/3-transform/transform.js';
import { JvmRunner, type TracedMethod } from '../src/toolchains/jvm/runner.js';
import { parameterTypes } from '../src/stages/1-trace/locations.js';
import { readLines } from './helpers.js';
import { sharedInjection } from './shared-fixture.js';

/*
 * Per-test selection on json-simple in a real JVM: the stage with selection and the stage with
 * whole-class runs decide every candidate alike, and a kept step ran exactly the witness's
 * failing methods and the tests that, traced on the buggy state, enter a member the step edits
 * (told here by class and method name, not by the lines the stage uses).
 */

const SEQUENCE = 't_call_stack_deepen_v1,t_local_state_bundle_v1';
const cache = cacheLayout(resolveCacheDir());
const jvm = new JvmRunner(cache);
const events = plainSink(() => undefined);
let project: FetchedProjectRef;
let injections: InjectionRecord[];
let options: Omit<TransformOptions, 'copy' | 'validation'>;

beforeAll(async () => {
  await loadJavaGrammar();
  const injected = await sharedInjection(await makeTempDir('selection-test'));
  injections = await readLines<InjectionRecord>(path.join(injected, 'injections.jsonl'));
  project = await resolveFetchedProject('json-simple', cache);
  options = {
    cache,
    project,
    fast: jvmTestRunner(cache, jvm),
    maven: null,
    contexts: await witnessContexts(project, cache, events),
    otherClassLimit: 3,
    events,
  };
});

afterAll(async () => {
  await jvm.close();
});

async function transformAll(validation: 'per-test' | 'whole-class'): Promise<TransformRecord[]> {
  const copy = await WorkingCopy.create(
    project.root,
    pristineState(project),
    project.layout,
    'selection-test',
  );
  const records: TransformRecord[] = [];
  const operators = selectTransforms(await loadTransformSpecs(), SEQUENCE).map((spec) =>
    deterministicSource(operatorFor(spec), 4),
  );
  try {
    const transformer = await createTransformer({ ...options, copy, validation });
    for (const injection of injections)
      records.push(await transformer.transform(injection, operators));
  } finally {
    await copy.close();
  }
  return records;
}

/** What was decided, candidate by candidate, without timings or selection details. */
function decisions(record: TransformRecord) {
  return {
    outcome: record.outcome.kind === 'Kept' ? 'Kept' : record.outcome,
    steps: record.steps.map((step) => ({
      kept: step.description,
      diff: step.diff,
      rejected: step.rejected,
      failingMethods: step.failingMethods,
    })),
  };
}

/** Class path (`Outer.Inner`), name and parameter types of each member a step edits. */
async function editedMembers(record: TransformRecord, index: number, copy: WorkingCopy) {
  if (record.outcome.kind !== 'Kept') throw new Error('a kept case was expected');
  const injection = injections.find((entry) => entry.id === record.injection)!;
  const patches = record.outcome.state.patches;
  let before = injection.state;
  for (const patch of patches.slice(1, index + 1)) before = withPatch(before, patch);
  const after = withPatch(before, patches[index + 1]!);
  const file = /^\+\+\+ b\/(.+)$/m.exec(record.steps[index]!.diff)![1]!;
  const read = async (state: typeof before) => {
    await copy.checkout(state);
    return readFile(path.join(copy.root, file), 'utf8');
  };
  const [beforeText, afterText] = [await read(before), await read(after)];
  return withJavaTrees(beforeText, afterText, (a, b): EditedMember[] =>
    changedMembers(a, b).flatMap((change) => {
      if (!change.before) return [];
      const open = change.key.indexOf('(');
      const head = change.key.slice(0, open);
      const dot = head.lastIndexOf('.');
      const list = change.key.slice(open + 1, change.key.lastIndexOf(')'));
      const parameters = list === '' ? [] : list.split(',');
      return [{ classPath: head.slice(0, dot), name: head.slice(dot + 1), parameters }];
    }),
  );
}

interface EditedMember {
  classPath: string;
  name: string;
  /** Simple erased names, as memberKey writes them (a type variable by its own name). */
  parameters: string[];
}

/** Whether a traced method is the member: same class, name and parameters. */
function isMember(method: TracedMethod, member: EditedMember): boolean {
  const classPath = method.owner.slice(method.owner.lastIndexOf('/') + 1).replace(/\$/g, '.');
  const name =
    method.name === '<init>' ? classPath.slice(classPath.lastIndexOf('.') + 1) : method.name;
  const parameters = parameterTypes(method.descriptor).map((type) =>
    type.slice(type.lastIndexOf('.') + 1),
  );
  return (
    member.classPath === classPath &&
    member.name === name &&
    member.parameters.length === parameters.length &&
    member.parameters.every(
      (type, index) => type === parameters[index] || /^[A-Z]$/.test(type.replace(/\[\]/g, '')),
    )
  );
}

/** The tests of `testClass` that, traced on the buggy state, enter one of `members`. */
async function testsEntering(
  injection: InjectionRecord,
  testClass: string,
  members: EditedMember[],
  copy: WorkingCopy,
): Promise<string[]> {
  const changed = await copy.checkout(injection.state);
  const runner = withTimeLimit(withTracing(jvmTestRunner(cache, jvm), true), () => 600_000);
  const result = await runner.run({
    target: { projectDir: copy.root, build: project.build, changed: compiledSources(changed) },
    testClass,
  });
  return tracedTests(testClass, result)
    .filter((test) =>
      test.entered.some((method) => members.some((member) => isMember(method, member))),
    )
    .map((test) => testId(test.testClass, test.testMethod));
}

describe('per-test selection on json-simple', () => {
  let selected: TransformRecord[];
  let whole: TransformRecord[];

  beforeAll(async () => {
    selected = await transformAll('per-test');
    whole = await transformAll('whole-class');
  });

  it('decides every candidate as the whole-class runs do', () => {
    expect(selected.length).toBe(injections.length);
    expect(selected.map(decisions)).toEqual(whole.map(decisions));
    expect(selected.some((record) => record.outcome.kind === 'Kept')).toBe(true);
  });

  it('runs the witness’s failing methods and the tests entering the edited members, fewer than the classes hold', async () => {
    const copy = await WorkingCopy.create(
      project.root,
      pristineState(project),
      project.layout,
      'selection-check',
    );
    try {
      let checked = 0;
      for (const record of selected.filter((entry) => entry.outcome.kind === 'Kept')) {
        const injection = injections.find((entry) => entry.id === record.injection)!;
        for (const [index, step] of record.steps.entries()) {
          const runs = step.validatedBy as NonNullable<Step['validatedBy']>;
          expect(runs[0]!.testClass).toBe(injection.witness.testClass);
          expect(step.testMethodsRun).toBeLessThan(step.testMethodsInClasses!);
          const members = await editedMembers(record, index, copy);
          for (const run of runs) {
            if (!run.methods) continue;
            const entering = await testsEntering(injection, run.testClass, members, copy);
            const failing =
              run.testClass === injection.witness.testClass
                ? Object.keys(record.buggyFailures).map((m) => testId(run.testClass, m))
                : [];
            const ran = run.methods.map((m) => testId(run.testClass, m));
            expect(new Set(ran), `${record.injection} step ${index + 1}`).toEqual(
              new Set([...failing, ...entering]),
            );
            checked++;
          }
        }
      }
      expect(checked).toBeGreaterThan(0);
    } finally {
      await copy.close();
    }
  });
});
