import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { exists, makeTempDir } from '../src/core/fs.js';
import type { RepairInstance } from '../src/repair/instance.js';
import { readInstanceFile } from '../src/repair/read.js';
import type { CaseRecord } from '../src/stages/4-archive/case.js';
import type { RepairExportSummary } from '../src/stages/4-archive/export-repair.js';
import type { RepairEvaluationSummary } from '../src/stages/5-evaluate/repair/evaluate-repair.js';
import type { ReevaluationSummary } from '../src/stages/7-strengthen/reevaluate.js';
import type { StrengthenSummary } from '../src/stages/7-strengthen/strengthen-file.js';
import type { ValidationSummary } from '../src/stages/7-strengthen/validate-file.js';
import { cli } from './helpers.js';
import { sharedOneCaseBench } from './shared-fixture.js';

/*
 * A json-simple case as a repair instance: `case export --as repair` writes the base tree without
 * the witness, gold as the fix, the witness as the test patch; S0 confirms it with Maven, and an
 * instance whose FAIL_TO_PASS names a test that passes on the base tree is reported, not kept.
 */

let work: string;
let record: CaseRecord;
let instance: RepairInstance;
let instancesFile: string;
let bench: string;
let caseDir: string;

beforeAll(async () => {
  work = await makeTempDir('repair-test');
  const shared = await sharedOneCaseBench(work);
  record = shared.record;
  bench = shared.bench;
  caseDir = shared.caseDir;
  const exported = await cli([
    'case',
    'export',
    bench,
    '--as',
    'repair',
    '--out',
    path.join(work, 'repair'),
    '--json',
  ]);
  expect(exported.exitCode, exported.stderr).toBe(0);
  instancesFile = path.join(work, 'repair', 'instances.jsonl');
  instance = (await readInstanceFile(instancesFile))[0]!;
});

describe('case export --as repair', () => {
  it('writes the buggy tree without the witness, the fix as gold and the witness as the test patch', async () => {
    expect(instance.instance_id).toBe(record.id);
    const snapshot = path.join(work, 'repair', instance.snapshot);
    expect(await exists(path.join(snapshot, 'pom.xml'))).toBe(true);
    expect(await exists(path.join(snapshot, record.officialTest.path))).toBe(false);
    expect(instance.test_patch).toContain(`+++ b/${record.officialTest.path}`);
    for (const file of record.bugRelatedFiles) {
      expect(instance.patch).toContain(`+++ b/${file}`);
      // The base holds the bug: gold takes out what the case's bug patch put in.
      const bugPatch = await readFile(path.join(caseDir, 'bug.patch'), 'utf8');
      const added = bugPatch.split('\n').filter((line) => /^\+[^+]/.test(line));
      const removedByGold = instance.patch.split('\n').filter((line) => /^-[^-]/.test(line));
      expect(removedByGold.map((line) => line.slice(1))).toEqual(
        added.map((line) => line.slice(1)),
      );
      expect(await readFile(path.join(snapshot, file), 'utf8')).toContain(added[0]!.slice(1));
    }
    // FAIL_TO_PASS: the methods that expose the bug, the witness's and the co-witnesses'.
    expect(instance.FAIL_TO_PASS).toEqual(
      [
        ...Object.keys(record.expectedFailure).map(
          (method) => `${record.officialTest.class}#${method}`,
        ),
        ...record.coWitnesses.flatMap((entry) =>
          Object.keys(entry.failingMethods).map((method) => `${entry.class}#${method}`),
        ),
      ].sort(),
    );
    for (const coWitness of record.coWitnesses) {
      expect(instance.test_patch).toContain(`+++ b/${coWitness.path}`);
      expect(await exists(path.join(snapshot, coWitness.path))).toBe(false);
    }
    expect(instance.PASS_TO_PASS.length).toBeGreaterThan(0);
    expect(instance.PASS_TO_PASS.filter((id) => instance.FAIL_TO_PASS.includes(id))).toEqual([]);
  });

  it('exports byte-identically on a rerun', async () => {
    const before = await readFile(instancesFile, 'utf8');
    const again = await cli([
      'case',
      'export',
      bench,
      '--as',
      'repair',
      '--out',
      path.join(work, 'repair'),
    ]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(await readFile(instancesFile, 'utf8')).toBe(before);
  });

  it('exports a case two benchmarks share once, and lists the other as a duplicate', async () => {
    const out = path.join(work, 'repair-twice');
    const twice = await cli([
      'case',
      'export',
      bench,
      bench,
      '--as',
      'repair',
      '--out',
      out,
      '--json',
    ]);
    expect(twice.exitCode, twice.stderr).toBe(0);
    const summary = JSON.parse(twice.stdout) as RepairExportSummary;
    expect(summary.instances).toBe(1);
    expect(summary.duplicates).toEqual([{ caseId: record.id, sameAs: record.id }]);
  });
});

describe('instances validate (S0)', () => {
  it('confirms the exported instance with Maven, and reports one whose FAIL_TO_PASS passes on the base tree', async () => {
    const passing = instance.PASS_TO_PASS[0]!;
    const broken = path.join(work, 'broken', 'instances.jsonl');
    await mkdir(path.dirname(broken), { recursive: true });
    await writeFile(
      broken,
      `${JSON.stringify({
        ...instance,
        instance_id: `${instance.instance_id}-wrong`,
        snapshot: path.join(work, 'repair', instance.snapshot),
        FAIL_TO_PASS: [...instance.FAIL_TO_PASS, passing],
        PASS_TO_PASS: instance.PASS_TO_PASS.filter((id) => id !== passing),
      })}\n`,
    );
    const good = await cli(['instances', 'validate', instancesFile, '--json']);
    expect(good.exitCode, good.stderr).toBe(0);
    const summary = JSON.parse(good.stdout) as ValidationSummary;
    expect(summary.outcomes.map((outcome) => outcome.kind)).toEqual(['Valid']);

    const bad = await cli(['instances', 'validate', broken, '--json']);
    expect(bad.exitCode).toBe(1);
    const [outcome] = (JSON.parse(bad.stdout) as ValidationSummary).outcomes;
    expect(outcome).toMatchObject({ kind: 'Invalid', side: 'base' });
    expect(outcome?.kind === 'Invalid' && outcome.problems).toEqual([
      `${passing} passes on the base tree`,
    ]);

    // Decided instances are not run again.
    const rerun = await cli(['instances', 'validate', instancesFile, '--json']);
    expect((JSON.parse(rerun.stdout) as ValidationSummary).earlier).toBe(1);
  });
});

describe('evaluate --task repair, strengthen and reevaluate', () => {
  it('resolves with gold, not with an empty patch, and the strengthened tests still accept gold', async () => {
    const rows: Record<string, RepairEvaluationSummary> = {};
    for (const agent of ['gold', 'none']) {
      const run = await cli([
        'evaluate',
        instancesFile,
        '--task',
        'repair',
        '--agent',
        agent,
        '--run',
        path.join(work, `eval-${agent}`),
        '--json',
      ]);
      expect(run.exitCode, run.stderr).toBe(0);
      rows[agent] = JSON.parse(run.stdout) as RepairEvaluationSummary;
    }
    expect(rows.gold!.resolved).toBe(1);
    expect(rows.none!.resolved).toBe(0);
    // The empty patch was judged in the sandbox: the witness's methods still fail on the base.
    const none = rows.none!.rows[0]!;
    expect(none.verdict).toMatchObject({ kind: 'Unresolved', broken: [] });
    expect(none.verdict.kind === 'Unresolved' && none.verdict.stillFailing).toEqual(
      instance.FAIL_TO_PASS,
    );

    const strong = path.join(work, 'strong');
    const strengthened = await cli(['strengthen', instancesFile, '--out', strong, '--json']);
    expect(strengthened.exitCode, strengthened.stderr).toBe(0);
    const summary = JSON.parse(strengthened.stdout) as StrengthenSummary;
    expect(summary.instances).toBe(1);
    expect(summary.coverage.relevant).toBeGreaterThan(0);
    expect(summary.coverage.after).toBeGreaterThanOrEqual(summary.coverage.before);

    const reevaluated = await cli([
      'reevaluate',
      path.join(strong, 'strengthened.jsonl'),
      '--predictions',
      rows.gold!.predictions,
      rows.none!.predictions,
      '--out',
      path.join(work, 'reeval'),
      '--json',
    ]);
    expect(reevaluated.exitCode, reevaluated.stderr).toBe(0);
    const result = JSON.parse(reevaluated.stdout) as ReevaluationSummary;
    const byAgent = Object.fromEntries(result.agents.map((agent) => [agent.agent, agent]));
    expect(byAgent.gold).toMatchObject({ acceptedBefore: 1, passesAfter: 1, rejected: 0 });
    expect(byAgent.none).toMatchObject({ acceptedBefore: 0, passesAfter: 0 });
    expect(result.rejections).toEqual([]);
    // The verdicts under the original tests were evaluate --task repair's, not judged again.
    const db = new Database(path.join(work, 'reeval', 'reevaluation.sqlite'), { readonly: true });
    const originals = (db.prepare('SELECT row FROM reevaluations').all() as { row: string }[]).map(
      (entry) => (JSON.parse(entry.row) as { original: string }).original,
    );
    db.close();
    expect(originals.sort()).toEqual([
      'Resolved (as evaluate --task repair judged it)',
      'Unresolved (as evaluate --task repair judged it)',
    ]);
  });
});

describe('evaluate --task repair with a coding agent in the sandbox', () => {
  it('applies what the agent changed in production code and strips its edits to tests', async () => {
    const scripts = path.join(work, 'agent-scripts');
    await mkdir(scripts, { recursive: true });
    await writeFile(path.join(scripts, 'gold.patch'), instance.patch);
    // The agent that fixes: it applies gold in its workspace (the sandbox's working directory).
    const fixer = path.join(work, 'eval-fixer');
    const fixed = await cli([
      'evaluate',
      instancesFile,
      '--task',
      'repair',
      '--agent',
      'command',
      '--agent-command',
      `patch -p1 < ${path.join(scripts, 'gold.patch')}`,
      '--sandbox-read',
      scripts,
      '--attempts',
      '1',
      '--run',
      fixer,
      '--json',
    ]);
    expect(fixed.exitCode, fixed.stderr).toBe(0);
    expect((JSON.parse(fixed.stdout) as RepairEvaluationSummary).resolved).toBe(1);

    // The agent that cheats: it replaces the witness's file with a test that passes and changes
    // no production code. The verifier judges with the instance's own tests all the same.
    const stub = `package ${record.officialTest.class.replace(/\.[^.]*$/, '')};\npublic class ${record.officialTest.class.replace(/^.*\./, '')} {}\n`;
    await writeFile(path.join(scripts, 'Stub.java'), stub);
    const cheater = path.join(work, 'eval-cheater');
    const cheated = await cli([
      'evaluate',
      instancesFile,
      '--task',
      'repair',
      '--agent',
      'command',
      '--agent-command',
      `mkdir -p ${path.dirname(record.officialTest.path)} && cp ${path.join(scripts, 'Stub.java')} ${record.officialTest.path}`,
      '--sandbox-read',
      scripts,
      '--attempts',
      '1',
      '--run',
      cheater,
      '--json',
    ]);
    expect(cheated.exitCode, cheated.stderr).toBe(0);
    const summary = JSON.parse(cheated.stdout) as RepairEvaluationSummary;
    expect(summary.resolved).toBe(0);
    expect(summary.rows[0]!.stripped).toEqual([record.officialTest.path]);
    expect(summary.rows[0]!.verdict).toMatchObject({ kind: 'Unresolved' });
  });

  it("runs a patch's production code only in the verifier's sandbox: it cannot write to the host", async () => {
    // The patch adds a static initializer to JSONValue (which the witness loads) that creates a
    // file at a host path. Run outside a sandbox, the file would appear; inside, that path does
    // not exist and the write fails.
    const marker = path.join(work, 'written-by-the-patch');
    const attacker = path.join(work, 'eval-attacker');
    const run = await cli([
      'evaluate',
      instancesFile,
      '--task',
      'repair',
      '--agent',
      'command',
      '--agent-command',
      `sed -i 's|^public class JSONValue {|public class JSONValue { static { try { new java.io.File("${marker}").createNewFile(); } catch (Exception e) { } }|' src/main/java/org/json/simple/JSONValue.java`,
      '--attempts',
      '1',
      '--run',
      attacker,
      '--json',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const [row] = (JSON.parse(run.stdout) as RepairEvaluationSummary).rows;
    // The edit was applied (a production change), judged, and left nothing on the host.
    expect(row!.patch).toContain('createNewFile');
    expect(row!.verdict.kind).toBe('Unresolved');
    expect(await exists(marker)).toBe(false);
  });
});
