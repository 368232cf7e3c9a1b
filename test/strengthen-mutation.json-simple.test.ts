import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTree } from '../src/core/fs.js';
import { patchOf } from '../src/project/state.js';
import { readInstanceFile } from '../src/repair/read.js';
import type { StrengthenSummary } from '../src/stages/7-strengthen/strengthen-file.js';
import type { MutantRecord } from '../src/stages/7-strengthen/stage-two.js';
import { cli } from './helpers.js';
import { ESCAPE, INSTANCE_ID, QUOTE_TEST, type PlantedInstance } from './planted-escape.js';
import { sharedPlantedInstance } from './shared-fixture.js';

/*
 * Stage II's deterministic engine on the planted blind spot (test/planted-escape.ts), through the
 * CLI: strengthening must find the blind spot and kill it, re-evaluation must then reject a
 * hand-written quote-only fix and still accept gold; and on the witness-drop control of the same
 * instance it must recover a test that fails on the bug.
 */

let work: string;
let planted: PlantedInstance;
let instancesFile: string;

beforeAll(async () => {
  work = await makeTempDir('strengthen-mutation-test');
  planted = await sharedPlantedInstance(work);
  instancesFile = planted.instancesFile;
});

afterAll(async () => {
  await removeTree(work);
});

/**
 * Stage II alone, every survivor in the generating half, `partialFixes` partial fixes (2: the blind
 * spot is one) besides the bug as it was: the other families add minutes, not cases.
 */
function strengthenMutation(file: string, out: string, partialFixes = 2) {
  return cli([
    'strengthen',
    file,
    '--stages',
    'mutation',
    '--hold-out',
    '0',
    '--mutants-per-family',
    String(partialFixes),
    '--mutant-families',
    'partial-gold',
    '--out',
    out,
    '--json',
  ]);
}

/** Stage II's mutants of the planted instance, from the report of a run into `out`. */
async function mutantsOf(out: string): Promise<MutantRecord[]> {
  const report = JSON.parse(
    await readFile(path.join(out, 'instances', INSTANCE_ID, 'report.json'), 'utf8'),
  ) as { report: { mutation: { mutants: MutantRecord[] } } };
  return report.report.mutation.mutants;
}

describe('strengthen --stages mutation on a planted blind spot', () => {
  it('kills the partial fix the suite lets pass, and re-evaluation rejects it but not gold', async () => {
    const out = path.join(work, 'strong');
    const run = await strengthenMutation(instancesFile, out);
    expect(run.exitCode, run.stderr).toBe(0);
    const summary = run.json as StrengthenSummary;
    expect(summary.stages.mutation).toMatchObject({ strengthened: 1 });

    // The slash hunk dropped is the blind spot: it survives, a probe tells it from gold, and a
    // kept test kills it.
    const mutants = await mutantsOf(out);
    const slashDropped = mutants.find(
      (mutant) =>
        mutant.family === 'partial-gold' &&
        !mutant.patch.includes("case '/'") &&
        mutant.patch.includes("case '\"'"),
    );
    expect(slashDropped?.fate).toMatchObject({ kind: 'NonEquivalent' });
    if (slashDropped?.fate.kind !== 'NonEquivalent') return;
    expect(slashDropped.fate.killedBy?.length).toBeGreaterThan(0);
    // The no-fix mutant (the bug itself) is killed by the instance's failing test.
    expect(mutants.find((mutant) => mutant.operator === 'no-fix')?.fate).toMatchObject({
      kind: 'Killed',
    });

    // The new test fails on the buggy base (the slash is not escaped there): FAIL_TO_PASS.
    const [strengthened] = await readInstanceFile(path.join(out, 'strengthened.jsonl'));
    expect(strengthened!.FAIL_TO_PASS.length).toBeGreaterThan(1);
    expect(strengthened!.original_FAIL_TO_PASS).toEqual([QUOTE_TEST]);

    // Re-evaluation: the hand-written quote-only fix was accepted before, rejected now.
    const { buggy, fixed, quoteOnly: partial } = planted;
    expect([buggy, fixed]).not.toContain(partial);
    const predictions = path.join(work, 'predictions.jsonl');
    await mkdir(path.dirname(predictions), { recursive: true });
    await writeFile(
      predictions,
      [
        {
          instance_id: INSTANCE_ID,
          model_name_or_path: 'quote-only',
          model_patch: patchOf([{ file: ESCAPE, before: buggy, after: partial }]).diff,
        },
        {
          instance_id: INSTANCE_ID,
          model_name_or_path: 'gold',
          model_patch: patchOf([{ file: ESCAPE, before: buggy, after: fixed }]).diff,
        },
      ]
        .map((line) => `${JSON.stringify(line)}\n`)
        .join(''),
    );
    const reevaluated = await cli([
      'reevaluate',
      path.join(out, 'strengthened.jsonl'),
      '--predictions',
      predictions,
      '--out',
      path.join(work, 'reeval'),
      '--json',
    ]);
    expect(reevaluated.exitCode, reevaluated.stderr).toBe(0);
    const agents = (
      reevaluated.json as {
        agents: { agent: string; acceptedBefore: number; passesAfter: number }[];
      }
    ).agents;
    expect(agents.find((agent) => agent.agent === 'quote-only')).toMatchObject({
      acceptedBefore: 1,
      passesAfter: 0,
    });
    expect(agents.find((agent) => agent.agent === 'gold')).toMatchObject({
      acceptedBefore: 1,
      passesAfter: 1,
    });
  });
});

describe('the witness-drop control on the same instance', () => {
  it('drops the failing test, so doing nothing is accepted; Stage II recovers a test that fails on the bug', async () => {
    const controlFile = path.join(work, 'control', 'instances.jsonl');
    const dropped = await cli([
      'instances',
      'drop-failing',
      instancesFile,
      '--out',
      controlFile,
      '--json',
    ]);
    expect(dropped.exitCode, dropped.stderr).toBe(0);
    const [control] = await readInstanceFile(controlFile);
    expect(control!.FAIL_TO_PASS).toEqual([]);
    expect(control!.control).toEqual({
      kind: 'witness-dropped',
      dropped: [QUOTE_TEST],
    });
    expect(control!.test_patch).not.toContain('testQuote');
    const validated = await cli(['instances', 'validate', controlFile, '--json']);
    expect(validated.exitCode, validated.stdout + validated.stderr).toBe(0);

    // The claim is about the bug as it was: one partial fix beside it is enough.
    const out = path.join(work, 'control-strong');
    const run = await strengthenMutation(controlFile, out, 1);
    expect(run.exitCode, run.stderr).toBe(0);
    // The patch that does nothing (the bug as it was) survived the P2P-only suite and was killed:
    // the test that killed it fails on the base tree.
    const noFix = (await mutantsOf(out)).find((mutant) => mutant.operator === 'no-fix');
    expect(noFix?.fate).toMatchObject({ kind: 'NonEquivalent' });
    if (noFix?.fate.kind !== 'NonEquivalent') return;
    expect(noFix.fate.killedBy?.length).toBeGreaterThan(0);
    const [strengthened] = await readInstanceFile(path.join(out, 'strengthened.jsonl'));
    expect(strengthened!.FAIL_TO_PASS.length).toBeGreaterThan(0);
    expect(strengthened!.original_FAIL_TO_PASS).toEqual([]);
  });
});
