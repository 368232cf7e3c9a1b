import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir, sha256Text } from '../../core/fs.js';
import { silent } from '../../events/types.js';
import type { AttemptRow, Diagnosis } from './records.js';
import { rescoreStore, type Judge, type RescoreStoreOptions } from './rescore.js';
import { EvaluationStore } from './store.js';
import type { SubmissionVerdict } from './verify-submission.js';

const CASE = 'json-simple@2.3.0-0123456789abcdef';

function row(caseSuffix: string, diagnosis: Diagnosis, test: string | null): AttemptRow {
  return {
    case: {
      caseId: `${CASE}${caseSuffix}`,
      project: 'json-simple',
      bugType: { id: 't', name: 'T', category: 'Logic', specHash: 'h' },
      bucket: 'short',
      depth: 1,
    },
    agent: 'scripted',
    agentSpec: 'spec',
    setting: 'NoEC',
    attempt: 1,
    diagnosis,
    paperSuccess: diagnosis.kind === 'Success',
    coverage: null,
    agentOutcome: { kind: 'Exited', code: 0, signal: null },
    agentMs: 1,
    verifyMs: 2,
    usage: null,
    prompt: sha256Text('prompt'),
    transcript: sha256Text('transcript'),
    testFiles: test === null ? [] : [{ path: 'src/test/java/T.java', sha256: sha256Text(test) }],
    feedback: '',
    tools: {},
    finishedAt: new Date(0).toISOString(),
  };
}

/** A store holding `rows`; texts of the tests named in `unstored` are left out. */
async function storeWith(
  rows: { row: AttemptRow; test: string | null }[],
  unstored: string[] = [],
): Promise<EvaluationStore> {
  const store = EvaluationStore.open(path.join(await makeTempDir('rescore'), 'run'));
  for (const { row: r, test } of rows) {
    store.begin({ caseId: r.case.caseId, agent: r.agent, setting: r.setting, attempt: r.attempt });
    const texts = test === null || unstored.includes(test) ? [] : [test];
    store.finish(r, ['prompt', 'transcript', ...texts]);
  }
  return store;
}

const verdict = (diagnosis: Diagnosis): SubmissionVerdict => ({
  diagnosis,
  paperSuccess: diagnosis.kind === 'Success',
  coverage: null,
  testClass: 'T',
  runs: [],
});

/** A judge answering per test text, counting its calls. */
function judgeBy(answers: Record<string, Diagnosis[]>): Judge & { calls: string[] } {
  const calls: string[] = [];
  const judge = async (_row: AttemptRow, tests: readonly { content: string }[]) => {
    const text = tests[0]!.content;
    calls.push(text);
    const queue = answers[text]!;
    const diagnosis = queue.length > 1 ? queue.shift()! : queue[0]!;
    return { kind: 'Scored' as const, verdict: verdict(diagnosis), verifyMs: 5 };
  };
  return Object.assign(judge, { calls });
}

const options = (judge: Judge, overrides: Partial<RescoreStoreOptions> = {}) => ({
  verifier: 'commit-a',
  tools: { witnessgym: '0.1.0' },
  again: false,
  judge,
  faultRetries: 2,
  events: silent,
  ...overrides,
});

const FORGED = 'class T { /* forges a stack frame */ }';
const WITNESS = 'class T { /* the witness */ }';
const LOST = 'class T { /* text not stored */ }';

function syntheticRun() {
  return storeWith(
    [
      { row: row('-a', { kind: 'Success' }, WITNESS), test: WITNESS },
      { row: row('-b', { kind: 'Success' }, FORGED), test: FORGED },
      { row: row('-c', { kind: 'NoTest' }, null), test: null },
      {
        row: row(
          '-d',
          {
            kind: 'Violation',
            violations: [{ file: 'pom.xml', edit: 'edited', what: 'build file' }],
          },
          WITNESS,
        ),
        test: WITNESS,
      },
      { row: row('-e', { kind: 'AgentTimeout' }, null), test: null },
      { row: row('-f', { kind: 'NotReached' }, LOST), test: LOST },
    ],
    [LOST],
  );
}

describe('rescore: stored submissions judged again, changes listed first', () => {
  it('judges only what the verifier judged, lists the changed rows first, and counts', async () => {
    const store = await syntheticRun();
    const before = store.allAttempts();
    const judge = judgeBy({
      [WITNESS]: [{ kind: 'Success' }],
      [FORGED]: [{ kind: 'BugNotExecuted' }],
    });
    const result = await rescoreStore(store, options(judge));

    expect(judge.calls.sort()).toEqual([FORGED, WITNESS].sort());
    expect(
      result.entries.map((entry) => [
        entry.kind,
        entry.key.caseId.slice(CASE.length),
        entry.before.kind,
        entry.kind === 'NotRescored' ? entry.reason : entry.after.kind,
      ]),
    ).toEqual([
      ['Changed', '-b', 'Success', 'BugNotExecuted'],
      [
        'NotRescored',
        '-f',
        'NotReached',
        `the text of src/test/java/T.java (${sha256Text(LOST)}) is not stored`,
      ],
      ['Unchanged', '-a', 'Success', 'Success'],
    ]);
    expect(result).toMatchObject({
      verifier: 'commit-a',
      rows: 6,
      notJudgedByVerifier: 3,
      rescoredNow: 2,
      rescoredEarlier: 0,
      changed: 1,
      unchanged: 1,
      notRescored: 1,
    });
    // The attempts' rows are as they were; the new verdicts are stored beside them.
    expect(store.allAttempts()).toEqual(before);
    const key = { caseId: `${CASE}-b`, agent: 'scripted', setting: 'NoEC' as const, attempt: 1 };
    expect(store.rescore(key, 'commit-a')).toMatchObject({
      diagnosis: { kind: 'BugNotExecuted' },
      verifyMs: 5,
      tools: { witnessgym: '0.1.0' },
    });
    expect(store.rescore(key, 'commit-b')).toBeUndefined();
  });

  it('a rerun by the same verifier judges nothing again, unless asked; another verifier judges anew', async () => {
    const store = await syntheticRun();
    const answers = {
      [WITNESS]: [{ kind: 'Success' } as const],
      [FORGED]: [{ kind: 'BugNotExecuted' } as const],
    };
    await rescoreStore(store, options(judgeBy(answers)));

    const rerun = judgeBy(answers);
    const again = await rescoreStore(store, options(rerun));
    expect(rerun.calls).toEqual([]);
    expect(again).toMatchObject({ rescoredNow: 0, rescoredEarlier: 2, changed: 1, notRescored: 1 });
    expect(again.entries[0]).toMatchObject({ kind: 'Changed', earlier: true });

    const forced = judgeBy({ [WITNESS]: [{ kind: 'Success' }], [FORGED]: [{ kind: 'Success' }] });
    const redone = await rescoreStore(store, options(forced, { again: true }));
    expect(forced.calls).toHaveLength(2);
    expect(redone).toMatchObject({ rescoredNow: 2, changed: 0, unchanged: 2 });

    const other = judgeBy(answers);
    await rescoreStore(store, options(other, { verifier: 'commit-b' }));
    expect(other.calls).toHaveLength(2);
  });

  it('a harness fault is judged again before it is kept, and a row that cannot be judged is not stored', async () => {
    const store = await storeWith([
      { row: row('-a', { kind: 'Success' }, WITNESS), test: WITNESS },
    ]);
    const judge = judgeBy({
      [WITNESS]: [{ kind: 'HarnessFault', reason: 'disk full' }, { kind: 'Success' }],
    });
    const result = await rescoreStore(store, options(judge));
    expect(judge.calls).toHaveLength(2);
    expect(result.entries.map((entry) => entry.kind)).toEqual(['Unchanged']);

    const notScored: Judge = async () => ({ kind: 'NotScored', reason: 'case not in the bench' });
    const missing = await rescoreStore(store, options(notScored, { verifier: 'commit-b' }));
    expect(missing.entries).toMatchObject([
      { kind: 'NotRescored', reason: 'case not in the bench' },
    ]);
    const key = { caseId: `${CASE}-a`, agent: 'scripted', setting: 'NoEC' as const, attempt: 1 };
    expect(store.rescore(key, 'commit-b')).toBeUndefined();
  });
});
