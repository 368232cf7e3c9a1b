import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTree } from '../src/core/fs.js';
import { runProcess } from '../src/core/process.js';
import { patchOf } from '../src/project/state.js';
import type { RepairInstance } from '../src/repair/instance.js';
import { readInstanceFile } from '../src/repair/read.js';
import type { StrengthenSummary } from '../src/stages/7-strengthen/strengthen-file.js';
import type { MutantRecord } from '../src/stages/7-strengthen/stage-two.js';
import { cli } from './helpers.js';
import { jsonSimplePristine } from './shared-fixture.js';

/*
 * Stage II on a planted blind spot, in real json-simple under real Maven. The bug drops two cases
 * of JSONValue.escape (the quote and the slash); gold restores both. The instance's failing test
 * checks the quote; its passing test escapes a slash but only checks that something came back. So
 * a fix of the quote alone — a plausible wrong patch, written here by hand — passes every test of
 * the instance. Strengthening must find that blind spot and kill it: re-evaluation must then
 * reject the hand-written partial fix and still accept gold.
 */

const ESCAPE = 'src/main/java/org/json/simple/JSONValue.java';
const TEST = 'src/test/java/org/json/simple/EscapeTest.java';
/** A case of escape's switch, in the file's own line breaks (json-simple's are CRLF). */
function switchCase(lines: string[], lineBreak: string): string {
  return lines.map((line) => `${line}${lineBreak}`).join('');
}
const QUOTE_LINES = ["\t\t\tcase '\"':", '\t\t\t\tsb.append("\\\\\\"");', '\t\t\t\tbreak;'];
const SLASH_LINES = ["\t\t\tcase '/':", '\t\t\t\tsb.append("\\\\/");', '\t\t\t\tbreak;'];

const ESCAPE_TEST = `package org.json.simple;

import org.junit.Assert;
import org.junit.Test;

public class EscapeTest {
    @Test
    public void testQuote() {
        Assert.assertEquals("a\\\\\\"b", JSONValue.escape("a\\"b"));
    }

    @Test
    public void testSlash() {
        String escaped = JSONValue.escape("a/b");
        Assert.assertNotNull(escaped);
    }
}
`;

let work: string;
let instancesFile: string;
let fixed: string;
let buggy: string;
let SLASH_CASE: string;

beforeAll(async () => {
  work = await makeTempDir('strengthen-mutation-test');
  const snapshot = path.join(work, 'instances', 'snapshot');
  await mkdir(path.dirname(snapshot), { recursive: true });
  const copied = await runProcess('cp', ['-a', jsonSimplePristine(), snapshot], {
    timeoutMs: 120_000,
  });
  expect(copied.exitCode, copied.stderr).toBe(0);
  // A snapshot is a source tree: the fetched tree's build output holds the fixed class.
  await removeTree(path.join(snapshot, 'target'));
  fixed = await readFile(path.join(snapshot, ESCAPE), 'utf8');
  const lineBreak = fixed.includes('\r\n') ? '\r\n' : '\n';
  const QUOTE_CASE = switchCase(QUOTE_LINES, lineBreak);
  SLASH_CASE = switchCase(SLASH_LINES, lineBreak);
  expect(fixed).toContain(QUOTE_CASE);
  expect(fixed).toContain(SLASH_CASE);
  buggy = fixed.replace(QUOTE_CASE, '').replace(SLASH_CASE, '');
  await writeFile(path.join(snapshot, ESCAPE), buggy);
  const instance: RepairInstance = {
    instance_id: 'json-simple-escape-planted',
    repo: 'fangyidong/json-simple',
    base_commit: 'planted',
    snapshot: 'snapshot',
    patch: patchOf([{ file: ESCAPE, before: buggy, after: fixed }]).diff,
    test_patch: patchOf([{ file: TEST, before: '', after: ESCAPE_TEST }]).diff,
    FAIL_TO_PASS: ['org.json.simple.EscapeTest#testQuote'],
    PASS_TO_PASS: ['org.json.simple.EscapeTest#testSlash'],
    problem_statement: 'JSONValue.escape leaves quotes and slashes as they are.',
    module: '',
    maven_flags: [],
    origin: { kind: 'swe-bench' },
  };
  instancesFile = path.join(work, 'instances', 'instances.jsonl');
  await writeFile(instancesFile, `${JSON.stringify(instance)}\n`);
  const validated = await cli(['instances', 'validate', instancesFile, '--json']);
  expect(validated.exitCode, validated.stdout + validated.stderr).toBe(0);
});

afterAll(async () => {
  await removeTree(work);
});

describe('strengthen --stages mutation on a planted blind spot', () => {
  it('kills the partial fix the suite lets pass, and re-evaluation rejects it but not gold', async () => {
    const out = path.join(work, 'strong');
    const run = await cli([
      'strengthen',
      instancesFile,
      '--stages',
      'mutation',
      '--hold-out',
      '0',
      '--mutants-per-family',
      '2',
      '--out',
      out,
      '--json',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const summary = run.json as StrengthenSummary;
    expect(summary.stages.mutation).toMatchObject({ strengthened: 1 });

    // The slash hunk dropped is the blind spot: it survives, a probe tells it from gold, and a
    // kept test kills it.
    const report = JSON.parse(
      await readFile(
        path.join(out, 'instances', 'json-simple-escape-planted', 'report.json'),
        'utf8',
      ),
    ) as { report: { mutation: { mutants: MutantRecord[] } } };
    const { mutants } = report.report.mutation;
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
    expect(strengthened!.original_FAIL_TO_PASS).toEqual(['org.json.simple.EscapeTest#testQuote']);

    // Re-evaluation: the hand-written quote-only fix was accepted before, rejected now.
    const partial = fixed.replace(SLASH_CASE, '');
    expect([buggy, fixed]).not.toContain(partial);
    const predictions = path.join(work, 'predictions.jsonl');
    await mkdir(path.dirname(predictions), { recursive: true });
    await writeFile(
      predictions,
      [
        {
          instance_id: 'json-simple-escape-planted',
          model_name_or_path: 'quote-only',
          model_patch: patchOf([{ file: ESCAPE, before: buggy, after: partial }]).diff,
        },
        {
          instance_id: 'json-simple-escape-planted',
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
      dropped: ['org.json.simple.EscapeTest#testQuote'],
    });
    expect(control!.test_patch).not.toContain('testQuote');
    const validated = await cli(['instances', 'validate', controlFile, '--json']);
    expect(validated.exitCode, validated.stdout + validated.stderr).toBe(0);

    const out = path.join(work, 'control-strong');
    const run = await cli([
      'strengthen',
      controlFile,
      '--stages',
      'mutation',
      '--hold-out',
      '0',
      '--mutants-per-family',
      '2',
      '--out',
      out,
      '--json',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const [strengthened] = await readInstanceFile(path.join(out, 'strengthened.jsonl'));
    // The patch that does nothing (the bug as it was) survived the P2P-only suite and was killed:
    // the test that killed it fails on the base tree.
    expect(strengthened!.FAIL_TO_PASS.length).toBeGreaterThan(0);
    expect(strengthened!.original_FAIL_TO_PASS).toEqual([]);
  });
});
