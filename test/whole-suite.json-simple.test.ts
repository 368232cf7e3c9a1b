import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { exists, makeTempDir } from '../src/core/fs.js';
import {
  resolveFetchedProject,
  pristineState,
  type FetchedProjectRef,
} from '../src/project/project.js';
import { patchOf, withPatch, type ProjectState } from '../src/project/state.js';
import { caseUnitOf } from '../src/pipeline/pipeline.js';
import { WholeSuite } from '../src/pipeline/whole-suite.js';
import { silent } from '../src/events/types.js';
import { witnessContexts } from '../src/stages/2-inject/contexts.js';
import type { ExecutionContextRecord } from '../src/stages/1-trace/trace.js';
import type { InjectionRecord } from '../src/stages/2-inject/records.js';
import type { CandidateSource } from '../src/stages/3-transform/candidates.js';
import { loadTransformSpecs } from '../src/stages/3-transform/spec.js';
import type { Transformer, TransformRecord } from '../src/stages/3-transform/transform.js';
import { archiveCase, readCaseFile } from '../src/stages/4-archive/archive.js';
import { writeGivenTree } from '../src/stages/5-evaluate/workspace.js';
import { JvmRunner } from '../src/toolchains/jvm/runner.js';
import { fetchCorpus } from './helpers.js';

/*
 * The whole-suite check on json-simple: a bug the witness (JSONArrayTest) exposes and another
 * existing class (JSONValueTest) exposes too is refused as given away; with `--co-witnesses hide`
 * it is kept, that class is recorded as a co-witness, and the agent's workspace lacks its file.
 * The warm runs take only the classes whose clean trace enters JSONArray.java; Maven runs them all,
 * the witness too, whose failures there confirm the case.
 */

const FILE = 'src/main/java/org/json/simple/JSONArray.java';
const WITNESS = 'org.json.simple.JSONArrayTest';
const CO_WITNESS = 'org.json.simple.JSONValueTest';
/** What the witness shows on the bug: the failures its steps would have recorded. */
const BUGGY_FAILURES = {
  testJSONArrayCollection: 'org.junit.ComparisonFailure',
  testToJSONStringCollection: 'org.json.simple.parser.ParseException',
  testWriteJSONStringCollectionWriter: 'org.json.simple.parser.ParseException',
};
const witness = { testClass: WITNESS, expected: BUGGY_FAILURES };

const cache = cacheLayout(resolveCacheDir());
let project: FetchedProjectRef;
let buggy: ProjectState;
let jvm: JvmRunner;
let suite: WholeSuite;
let contexts: ExecutionContextRecord[];

beforeAll(async () => {
  await fetchCorpus('json-simple');
  project = await resolveFetchedProject('json-simple', cache);
  const clean = await readFile(path.join(project.root, FILE), 'utf8');
  // Array elements written with ';' between them: every test writing an array of two sees it.
  const bug = clean.replace(/(if\(first\)\s*first = false;\s*else\s*out\.write\()','\)/, "$1';')");
  expect(bug).not.toBe(clean);
  buggy = withPatch(pristineState(project), patchOf([{ file: FILE, before: clean, after: bug }]));
  jvm = new JvmRunner(cache);
  contexts = await witnessContexts(project, cache, silent);
  suite = await WholeSuite.open({
    cache,
    project,
    contexts,
    jvm,
    copyName: 'suite-test',
    maven: true,
  });
}, 600_000);

afterAll(async () => {
  await suite?.close();
  await jvm?.close();
});

describe('the whole existing suite on a case', () => {
  it('refuses a bug another existing class exposes, from the warm runs alone', async () => {
    const check = await suite.check(buggy, witness, 'refuse');
    // One class that gives the bug away is enough: the warm runs stop at it.
    expect(check).toMatchObject({ kind: 'GivenAway', classes: [expect.any(String)] });
    expect(check.runs.map((run) => run.runner)).toEqual(['jvm']);
    expect(check.runs[0]!.stoppedAtFirst).toBe(true);
    expect(check.runs[0]!.classesRun).toBeLessThanOrEqual(reachingClasses().length);
  }, 300_000);

  it('refuses a state on which Maven does not show the witness failing; nothing else fails there', async () => {
    const check = await suite.check(pristineState(project), witness, 'refuse');
    expect(check).toMatchObject({
      kind: 'WitnessRefuted',
      reason: expect.stringContaining('does not expose the change'),
    });
    expect(check.runs.map((run) => run.runner)).toEqual(['jvm', 'maven']);
    // A state that changes no file: no class can see a change warm; Maven runs every class.
    expect(check.runs[0]!.classesRun).toBe(0);
    expect(check.runs[1]).toMatchObject({ witness: 'Passed', failing: [] });
    expect(check.runs[1]!.classesRun).toBe(
      project.baseline.classes.filter((entry) => entry.status === 'Passed').length - 1,
    );
  }, 600_000);

  it('refuses a case whose witness fails under Maven otherwise than its steps recorded', async () => {
    const check = await suite.check(
      buggy,
      {
        testClass: WITNESS,
        expected: { ...BUGGY_FAILURES, testJSONArrayCollection: 'java.lang.NullPointerException' },
      },
      'hide',
    );
    expect(check).toMatchObject({
      kind: 'WitnessRefuted',
      reason: expect.stringContaining(
        'testJSONArrayCollection fails with org.junit.ComparisonFailure, expected java.lang.NullPointerException',
      ),
    });
  }, 600_000);

  it('with co-witnesses hidden, keeps the case and leaves them out of the workspace', async () => {
    const check = await suite.check(buggy, witness, 'hide');
    if (check.kind !== 'Hidden') throw new Error(JSON.stringify(check));
    // The warm runs: every other class whose clean trace enters JSONArray.java, and only those.
    const others = project.baseline.classes.filter((entry) => entry.status === 'Passed').length - 1;
    expect(reachingClasses().length).toBeGreaterThan(0);
    expect(reachingClasses().length).toBeLessThan(others);
    expect(check.runs[0]!.classesRun).toBe(reachingClasses().length);
    expect(check.runs[0]!.stoppedAtFirst).toBeUndefined();
    // Maven ran too, agrees with the warm runs, and confirms the witness in the same run.
    expect(check.runs.map((run) => run.runner)).toEqual(['jvm', 'maven']);
    expect(check.runs[1]).toMatchObject({ witness: 'TestFailed' });
    expect(check.runs[1]!.witnessRunAlone).toBeUndefined();
    expect(check.runs[1]!.failing.map((entry) => entry.testClass)).toContain(CO_WITNESS);
    const coWitnesses = check.coWitnesses;
    expect(coWitnesses.map((entry) => entry.testClass)).toContain(CO_WITNESS);

    const bench = path.join(await makeTempDir('whole-suite-bench'), 'bench');
    const outcome = await archiveCase(
      {
        project,
        injection: fakeInjection(buggy),
        transform: fakeTransform(buggy),
        contexts: [witnessContext()],
        tools: { witnessgym: '0', java: '17', maven: '3' },
        coWitnesses,
      },
      bench,
    );
    if (outcome.kind !== 'Archived') throw new Error(JSON.stringify(outcome));
    const record = await readCaseFile(outcome.dir);
    expect(record.coWitnesses.map((entry) => entry.class)).toEqual(
      coWitnesses.map((entry) => entry.testClass),
    );
    const given = path.join(await makeTempDir('whole-suite-given'), 'tree');
    await writeGivenTree(outcome.dir, record, project, given);
    const testDir = path.join(given, 'src/test/java/org/json/simple');
    expect(await exists(path.join(testDir, 'JSONArrayTest.java'))).toBe(false);
    expect(await exists(path.join(testDir, 'JSONValueTest.java'))).toBe(false);
    expect(await exists(path.join(testDir, 'JsonArrayTest.java'))).toBe(true);
  }, 600_000);

  it('refuses a bug before steps that keep its reach, and transforms it for steps that may narrow it', async () => {
    const transformed: string[][] = [];
    const transformer = {
      transform: async (_injection: InjectionRecord, sources: readonly CandidateSource[]) => {
        transformed.push(sources.map((source) => source.id));
        return { outcome: { kind: 'Short' } } as TransformRecord;
      },
    } as unknown as Transformer;
    const specs = await loadTransformSpecs();
    const unit = caseUnitOf({ transformer, suite }, 'refuse', specs);
    const injection = { state: buggy, witness: { testClass: WITNESS } } as InjectionRecord;
    const source = (id: string) => ({ id }) as CandidateSource;

    const refused = await unit(injection, [source('t_call_stack_deepen_v1')]);
    expect(refused).toMatchObject({
      kind: 'GivenAwayBeforeSteps',
      suite: { kind: 'GivenAway', classes: [expect.any(String)] },
    });
    expect(transformed).toEqual([]);
    // A gate may leave the other class's inputs correct: the steps decide.
    const gated = ['t_rare_profile_gate_v1', 't_call_stack_deepen_v1'];
    expect(await unit(injection, gated.map(source))).toMatchObject({ kind: 'Transformed' });
    expect(transformed).toEqual([gated]);
    // Nor is a clean state refused before its steps.
    const clean = { ...injection, state: pristineState(project) };
    expect(await unit(clean, [source('t_call_stack_deepen_v1')])).toMatchObject({
      kind: 'Transformed',
    });
  }, 300_000);
});

/** The classes besides the witness whose clean trace enters the bug's file. */
function reachingClasses(): string[] {
  return contexts
    .filter(
      (record) =>
        record.testMethod === null &&
        record.testClass !== WITNESS &&
        record.trace.some((location) => location.file === FILE),
    )
    .map((record) => record.testClass);
}

function fakeInjection(state: ProjectState): InjectionRecord {
  return {
    id: 'inj0000000000001',
    state: { ...state, patches: state.patches.slice(0, 1) },
    bugType: {
      id: 'logic_predicate_inversion_in_guard',
      name: 'Guard Predicate Inversion',
      category: 'Logic',
      specHash: 'h',
    },
    engine: { kind: 'rules' },
    seed: 1,
    witness: { testClass: WITNESS, contextSize: 1, bucket: 'short' },
    site: { file: FILE, member: 'writeJSONString', line: 74, description: "',' to ';'" },
  } as unknown as InjectionRecord;
}

function fakeTransform(state: ProjectState): TransformRecord {
  return {
    id: 'trf0000000000001',
    injection: 'inj0000000000001',
    sequence: [],
    outcome: { kind: 'Kept', state, maven: 'TestFailed' },
    steps: [],
    buggyFailures: BUGGY_FAILURES,
    durationMs: 1,
  };
}

function witnessContext(): ExecutionContextRecord {
  return {
    trace: [],
    size: 1,
    bucket: 'short',
    anchors: [],
    bugRelatedFiles: [FILE],
    testClass: WITNESS,
    testMethod: null,
    status: 'Passed',
    baselineStatus: 'Passed',
    detail: '',
    durationMs: 1,
    records: 1,
  };
}
