import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { exists, makeTempDir } from '../../core/fs.js';
import type { ProjectRef } from '../../project/project.js';
import { baseState, patchOf, withPatch, type ProjectBase } from '../../project/state.js';
import { readRecords } from '../../records/record.js';
import { DEFAULT_BUILD } from '../../toolchains/build-settings.js';
import { projectLayout } from '../../toolchains/layout.js';
import { DEFAULT_TESTS } from '../../project/recipe.js';
import type { ExecutionContextRecord } from '../1-trace/trace.js';
import type { InjectionRecord } from '../2-inject/records.js';
import type { TransformRecord } from '../3-transform/transform.js';
import {
  archiveCase,
  benchLayout,
  loadCaseState,
  readCaseFile,
  readHiddenWitness,
  rebuildIndex,
  type CaseInput,
} from './archive.js';
import { CaseIndexLine } from './case.js';
import { materialiseCase } from './materialise.js';

const MAIN = 'src/main/java/p/Counter.java';
const TEST = 'src/test/java/p/CounterTest.java';
const CLEAN = `package p;

public class Counter {
    public int next(int value) {
        if (value >= 0) {
            return value + 1;
        }
        return 0;
    }
}
`;
const BUGGY = CLEAN.replace('value >= 0', 'value > 0');
const HELPED = `package p;

public class Counter {
    public int next(int value) {
        return successor(value);
    }

    private int successor(int value) {
        if (value > 0) {
            return value + 1;
        }
        return 0;
    }
}
`;
const WITNESS = `package p;

public class CounterTest {
    @org.junit.Test
    public void zero() {
        org.junit.Assert.assertEquals(1, new Counter().next(0));
    }
}
`;

const base: ProjectBase = { name: 'counter', version: '1.0', commit: 'c0ffee', recipeHash: 'r1' };

async function fixture(): Promise<CaseInput> {
  const root = path.join(await makeTempDir('archive-test'), 'pristine');
  for (const [file, text] of [
    [MAIN, CLEAN],
    [TEST, WITNESS],
    ['pom.xml', '<project/>\n'],
    ['target/classes/p/Counter.class', 'compiled'],
  ] as const) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
  const project: ProjectRef = {
    label: 'counter@1.0',
    base,
    root,
    build: DEFAULT_BUILD,
    layout: projectLayout(DEFAULT_BUILD),
    tests: DEFAULT_TESTS,
  };
  const injected = withPatch(
    baseState(base),
    patchOf([{ file: MAIN, before: CLEAN, after: BUGGY }]),
  );
  const helped = withPatch(injected, patchOf([{ file: MAIN, before: BUGGY, after: HELPED }]));
  const site = { file: MAIN, member: 'p.Counter#next(int)', line: 5, description: '>= to >' };
  const injection = {
    id: 'inj0000000000001',
    state: injected,
    bugType: {
      id: 'logic_predicate_inversion_in_guard',
      name: 'Guard Predicate Inversion',
      category: 'Logic',
      specHash: 'h',
    },
    engine: { kind: 'rules' },
    seed: 3,
    witness: { testClass: 'p.CounterTest', contextSize: 1, bucket: 'short' },
    site,
  } as unknown as InjectionRecord;
  const transform: TransformRecord = {
    id: 'trf0000000000001',
    injection: injection.id,
    sequence: ['t_call_stack_deepen_v1'],
    outcome: { kind: 'Kept', state: helped, maven: 'TestFailed' },
    steps: [
      {
        operator: 't_call_stack_deepen_v1',
        engine: { kind: 'deterministic' },
        description: 'successor',
        diff: helped.patches[1]!.diff,
        rejected: [],
        failingMethods: { zero: 'java.lang.AssertionError' },
        otherClassesRun: 0,
        durationMs: 1,
      },
    ],
    buggyFailures: { zero: 'java.lang.AssertionError' },
    durationMs: 1,
  };
  const location = {
    file: MAIN,
    className: 'p.Counter',
    method: 'next',
    signature: 'next(int)',
    line: 4,
  };
  const context: ExecutionContextRecord = {
    trace: [location],
    size: 1,
    bucket: 'short',
    anchors: ['p.Counter.next(int)'],
    bugRelatedFiles: [MAIN],
    testClass: 'p.CounterTest',
    testMethod: null,
    status: 'Passed',
    baselineStatus: 'Passed',
    detail: '',
    durationMs: 1,
    records: 1,
  };
  const other = { ...context, testClass: 'p.OtherTest' };
  return {
    project,
    injection,
    transform,
    contexts: [other, context],
    tools: { witnessgym: '0.0.0', java: '17', maven: '3.9' },
  };
}

let input: CaseInput;
let bench: string;

beforeEach(async () => {
  input = await fixture();
  bench = path.join(await makeTempDir('archive-bench'), 'bench');
});

describe('archiveCase', () => {
  it('writes a case directory, its hidden witness and one index line', async () => {
    const outcome = await archiveCase(input, bench);
    expect(outcome.kind).toBe('Archived');
    if (outcome.kind !== 'Archived') return;
    expect(outcome.caseId).toMatch(/^counter@1\.0-[0-9a-f]{16}$/);
    const dir = outcome.dir;
    const record = await readCaseFile(dir);
    expect(record).toMatchObject({
      trace: { id: 'p.CounterTest', bucket: 'short', size: 1 },
      transforms: { ids: ['t_call_stack_deepen_v1'], depth: 1 },
      officialTest: { path: TEST, class: 'p.CounterTest' },
      bugRelatedFiles: [MAIN],
      moduleRoot: '.',
      expectedFailure: { zero: 'java.lang.AssertionError' },
      seed: 3,
    });
    expect(record.verifyCommand).toContain('-Dtest=');
    expect(record.bugMembers.map((member) => member.name).sort()).toEqual(['next', 'successor']);
    expect((await readdir(path.join(dir, 'steps'))).sort()).toEqual([
      '00-inject.patch',
      '01-t_call_stack_deepen_v1.patch',
    ]);
    // The combined patch goes from the clean file straight to the final one.
    const bugPatch = await readFile(path.join(dir, 'bug.patch'), 'utf8');
    expect(bugPatch).toBe(patchOf([{ file: MAIN, before: CLEAN, after: HELPED }]).diff);
    // The witness's text is only in the hidden tree; the payloads name its path, not its body.
    const layout = benchLayout(bench);
    expect(await readFile(layout.hiddenFile(outcome.caseId, TEST), 'utf8')).toBe(WITNESS);
    const noEc = await readFile(path.join(dir, 'tasks', 'NoEC.md'), 'utf8');
    const withEc = await readFile(path.join(dir, 'tasks', 'WithEC.md'), 'utf8');
    for (const payload of [noEc, withEc]) {
      expect(payload).toContain(`Official test path: ${TEST}`);
      expect(payload).not.toContain('assertEquals');
    }
    expect(noEc).toContain('Context setting: NoEC');
    expect(noEc).not.toContain('Execution context block');
    expect(withEc).toContain('Execution context block');
    expect(withEc).toContain(`p.Counter.next(int) (${MAIN})`);
    const context = JSON.parse(await readFile(path.join(dir, 'execution_context.json'), 'utf8'));
    expect(context.context.testClass).toBe('p.CounterTest');
    const { records } = await readRecords(layout.index, CaseIndexLine);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      instance_id: outcome.caseId,
      patch: bugPatch,
      FAIL_TO_PASS: ['zero'],
      depth: 1,
      injection_id: input.injection.id,
    });
  });

  it('is idempotent: the same case again is left as it is and indexed once', async () => {
    const first = await archiveCase(input, bench);
    const again = await archiveCase(input, bench);
    expect(again).toMatchObject({ kind: 'Existing', caseId: (first as { caseId: string }).caseId });
    const { records } = await readRecords(benchLayout(bench).index, CaseIndexLine);
    expect(records).toHaveLength(1);
    const rebuilt = await rebuildIndex(bench);
    expect(rebuilt).toEqual(records);
    // Only the case and the hidden tree, no temporary directory left behind.
    expect((await readdir(bench)).filter((name) => !name.startsWith('.')).sort()).toEqual(
      [(first as { caseId: string }).caseId, 'cases.jsonl', 'hidden'].sort(),
    );
  });

  it('redoes a case whose directory a crash left unwritten, and an index line cut short', async () => {
    const first = await archiveCase(input, bench);
    if (first.kind !== 'Archived') throw new Error(first.kind);
    const layout = benchLayout(bench);
    // A crash after the hidden tree was renamed into place but before the case was.
    await rm(first.dir, { recursive: true });
    await writeFile(layout.index, '');
    expect(await archiveCase(input, bench)).toMatchObject({ kind: 'Archived' });
    // A crash in the middle of the index append: the case is there, its line torn.
    const line = await readFile(layout.index, 'utf8');
    await writeFile(layout.index, line.slice(0, line.length - 10));
    expect(await archiveCase(input, bench)).toMatchObject({ kind: 'Existing' });
    const { records, tornLastLine } = await readRecords(layout.index, CaseIndexLine);
    expect(tornLastLine).toBeNull();
    expect(records.map((entry) => entry.instance_id)).toEqual([first.caseId]);
  });

  it('keeps the witness readable from the hidden tree, and notices an edited copy', async () => {
    const outcome = await archiveCase(input, bench);
    if (outcome.kind !== 'Archived') throw new Error(outcome.kind);
    expect(await readHiddenWitness(bench, outcome.caseId)).toMatchObject({
      kind: 'Found',
      witness: { testClass: 'p.CounterTest', path: TEST, failingMethods: ['zero'] },
      text: WITNESS,
    });
    await writeFile(benchLayout(bench).hiddenFile(outcome.caseId, TEST), `${WITNESS}\n`);
    expect(await readHiddenWitness(bench, outcome.caseId)).toMatchObject({ kind: 'Corrupt' });
  });

  it('refuses a case that was not kept, or whose witness has no context', async () => {
    const short = await archiveCase(
      {
        ...input,
        transform: {
          ...input.transform,
          outcome: {
            kind: 'Short',
            stoppedAt: { kind: 'step', index: 0, operator: 't_call_stack_deepen_v1' },
            reason: 'no site',
          },
        },
      },
      bench,
    );
    expect(short).toMatchObject({
      kind: 'Refused',
      reason: expect.stringMatching(/not kept: no site/),
    });
    const blind = await archiveCase({ ...input, contexts: [input.contexts[0]!] }, bench);
    expect(blind).toMatchObject({
      kind: 'Refused',
      reason: expect.stringMatching(/no execution context/),
    });
    expect(await exists(bench)).toBe(false);
  });
});

describe('loadCaseState and materialiseCase', () => {
  it('rebuild the recorded state; an edited patch file makes the case corrupt', async () => {
    const outcome = await archiveCase(input, bench);
    if (outcome.kind !== 'Archived') throw new Error(outcome.kind);
    const record = await readCaseFile(outcome.dir);
    const loaded = await loadCaseState(outcome.dir, record);
    expect(loaded).toMatchObject({ kind: 'Loaded', state: { id: record.state.id } });
    const step = path.join(outcome.dir, 'steps', '01-t_call_stack_deepen_v1.patch');
    await writeFile(step, (await readFile(step, 'utf8')).replace('successor', 'next1'));
    expect(await loadCaseState(outcome.dir, record)).toMatchObject({
      kind: 'Corrupt',
      reason: expect.stringMatching(/01-t_call_stack_deepen_v1\.patch was changed/),
    });
  });

  it('write the buggy tree without build output, the clean one, and one without the witness', async () => {
    const outcome = await archiveCase(input, bench);
    if (outcome.kind !== 'Archived') throw new Error(outcome.kind);
    const record = await readCaseFile(outcome.dir);
    const out = await makeTempDir('archive-trees');
    const buggy = path.join(out, 'buggy');
    expect(
      await materialiseCase(outcome.dir, record, input.project, buggy, {
        side: 'buggy',
        hideWitness: false,
      }),
    ).toMatchObject({ kind: 'Materialised', state: record.state.id });
    expect(await readFile(path.join(buggy, MAIN), 'utf8')).toBe(HELPED);
    expect(await readFile(path.join(buggy, TEST), 'utf8')).toBe(WITNESS);
    expect(await exists(path.join(buggy, 'target'))).toBe(false);

    const clean = path.join(out, 'clean');
    await materialiseCase(outcome.dir, record, input.project, clean, {
      side: 'clean',
      hideWitness: true,
    });
    expect(await readFile(path.join(clean, MAIN), 'utf8')).toBe(CLEAN);
    expect(await exists(path.join(clean, TEST))).toBe(false);
    expect(await exists(path.join(clean, 'pom.xml'))).toBe(true);

    await expect(
      materialiseCase(outcome.dir, record, input.project, buggy, {
        side: 'buggy',
        hideWitness: false,
      }),
    ).rejects.toThrow(/is not empty/);
  });
});

describe('co-witnesses and the fixtures only hidden tests name', () => {
  const CO = 'src/test/java/p/OtherTest.java';
  const FIXTURE = 'src/test/resources/p/zero.bin';
  const SHARED = 'src/test/resources/p/shared.txt';

  async function plant(files: Record<string, string>): Promise<void> {
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(input.project.root, file)), { recursive: true });
      await writeFile(path.join(input.project.root, file), text);
    }
  }

  it('records them, keeps their copies hidden, and leaves them out of a workspace', async () => {
    await plant({
      [TEST]: WITNESS.replace('public void zero', 'String f = "p/zero.bin";\n    public void zero'),
      [CO]: 'package p;\n\npublic class OtherTest { String s = "shared.txt"; }\n',
      'src/test/java/p/ThirdTest.java':
        'package p;\n\npublic class ThirdTest { String s = "shared.txt"; }\n',
      [FIXTURE]: '\u0000\u0001binary',
      [SHARED]: 'x',
    });
    const outcome = await archiveCase(
      { ...input, coWitnesses: [{ testClass: 'p.OtherTest', failingMethods: { one: 'E' } }] },
      bench,
    );
    if (outcome.kind !== 'Archived') throw new Error(JSON.stringify(outcome));
    const record = await readCaseFile(outcome.dir);
    expect(record.coWitnesses).toEqual([
      { class: 'p.OtherTest', path: CO, failingMethods: { one: 'E' } },
    ]);
    expect(record.hiddenResources).toEqual([FIXTURE]);
    const layout = benchLayout(bench);
    expect(await exists(layout.hiddenFile(outcome.caseId, CO))).toBe(true);
    expect(await readFile(layout.hiddenFile(outcome.caseId, FIXTURE), 'utf8')).toBe(
      '\u0000\u0001binary',
    );

    const out = await makeTempDir('archive-hidden');
    const workspace = path.join(out, 'workspace');
    expect(
      await materialiseCase(outcome.dir, record, input.project, workspace, {
        side: 'buggy',
        hideWitness: true,
        hideFixtures: true,
      }),
    ).toMatchObject({ alsoHidden: [CO, FIXTURE] });
    for (const gone of [TEST, CO, FIXTURE])
      expect(await exists(path.join(workspace, gone))).toBe(false);
    expect(await exists(path.join(workspace, SHARED))).toBe(true);
    // The verifier's trees keep the fixtures, so the hidden witness runs there as written.
    const verifier = path.join(out, 'verifier');
    await materialiseCase(outcome.dir, record, input.project, verifier, {
      side: 'clean',
      hideWitness: true,
    });
    expect(await exists(path.join(verifier, CO))).toBe(false);
    expect(await exists(path.join(verifier, FIXTURE))).toBe(true);
  });

  it('refuses to hide a co-witness another remaining test uses', async () => {
    await plant({
      [CO]: 'package p;\n\npublic class OtherTest { static int X = 1; }\n',
      'src/test/java/p/UserTest.java':
        'package p;\n\npublic class UserTest { int y = OtherTest.X; }\n',
    });
    expect(
      await archiveCase(
        { ...input, coWitnesses: [{ testClass: 'p.OtherTest', failingMethods: {} }] },
        bench,
      ),
    ).toMatchObject({
      kind: 'Refused',
      reason: `the co-witness ${CO} cannot leave the workspace: src/test/java/p/UserTest.java uses it`,
    });
  });

  it('reads a case record of version 1 as hiding the witness alone', async () => {
    const outcome = await archiveCase(input, bench);
    if (outcome.kind !== 'Archived') throw new Error(outcome.kind);
    const file = path.join(outcome.dir, 'case.json');
    const { coWitnesses, hiddenResources, ...v1 } = JSON.parse(await readFile(file, 'utf8'));
    expect([coWitnesses, hiddenResources]).toEqual([[], []]);
    await writeFile(file, JSON.stringify({ ...v1, v: 1 }));
    expect(await readCaseFile(outcome.dir)).toMatchObject({ coWitnesses: [], hiddenResources: [] });
    await writeFile(file, JSON.stringify({ ...v1, v: 7 }));
    await expect(readCaseFile(outcome.dir)).rejects.toThrow(
      /version 7; this witnessgym reads version 2/,
    );
  });
});
