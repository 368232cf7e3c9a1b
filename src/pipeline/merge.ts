import { randomBytes } from 'node:crypto';
import { cp, readdir, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { UserError } from '../core/errors.js';
import { exists, removeTree } from '../core/fs.js';
import { appendRecords, readRecords } from '../records/record.js';
import { benchLayout, caseIds, rebuildIndex } from '../stages/4-archive/archive.js';
import { EvaluationStore, STORE_FILE } from '../stages/5-evaluate/store.js';
import { BuildCaseLine, FinishedBucketLine, type BuildCaseRecord } from './pipeline.js';

/*
 * `witnessgym merge`: the outputs of `--shard i/N` runs (or of any runs of the same work) united
 * into one. A unit is keyed as it was in its run, so the same unit from two outputs is the same
 * result or a conflict, reported and never silently resolved: the first output's stays.
 */

export type MergeKind = 'evaluation' | 'benchmark' | 'strengthening';

export interface MergeConflict {
  /** The unit's key: an attempt, a case, a ledger entry, an instance. */
  unit: string;
  /** The output whose differing result was left out. */
  from: string;
  what: string;
}

export interface MergeResult {
  kind: MergeKind;
  out: string;
  sources: string[];
  /** Units taken into `out`, and units it already held the same. */
  added: number;
  same: number;
  conflicts: MergeConflict[];
  /** What is left to do, when something is. */
  next: string | null;
}

async function kindOf(dir: string): Promise<MergeKind> {
  if (await exists(path.join(dir, STORE_FILE))) return 'evaluation';
  if (await exists(path.join(dir, 'build'))) return 'benchmark';
  if (await exists(path.join(dir, 'instances'))) return 'strengthening';
  if (!(await exists(dir))) throw new UserError(`${dir} does not exist`);
  throw new UserError(
    `${dir} is not an evaluation run (${STORE_FILE}), a benchmark (build/) or a strengthening output (instances/)`,
  );
}

export async function mergeOutputs(dirs: readonly string[], outDir: string): Promise<MergeResult> {
  if (dirs.length === 0) throw new UserError('name the outputs to merge');
  const sources = dirs.map((dir) => path.resolve(dir));
  const out = path.resolve(outDir);
  if (sources.includes(out)) throw new UserError(`--out ${out} is one of the outputs merged`);
  const kinds = await Promise.all(sources.map(kindOf));
  const kind = kinds[0]!;
  const other = kinds.findIndex((each) => each !== kind);
  if (other >= 0) {
    throw new UserError(
      `${sources[other]} is a ${kinds[other]}, ${sources[0]} a ${kind}: merge outputs of one kind`,
    );
  }
  if ((await exists(out)) && (await readdir(out)).length > 0 && (await kindOf(out)) !== kind) {
    throw new UserError(`--out ${out} holds something other than a ${kind}`);
  }
  const result: MergeResult = { kind, out, sources, added: 0, same: 0, conflicts: [], next: null };
  for (const source of sources) {
    if (kind === 'evaluation') mergeEvaluation(source, out, result);
    else if (kind === 'benchmark') await mergeBenchmark(source, out, result);
    else await mergeStrengthening(source, out, result);
  }
  if (kind === 'benchmark') await rebuildIndex(out);
  if (kind === 'strengthening') {
    result.next = `run 'witnessgym strengthen <instances.jsonl> --out ${out}' with the shards' flags (no --shard): it reuses every instance's report and writes strengthened.jsonl, the predictions files and summary.json`;
  }
  return result;
}

/** The fields two rows of one attempt differ in, besides their times (which always do). */
function rowDifferences(a: string, b: string): string[] {
  const times = new Set(['agentMs', 'verifyMs', 'finishedAt']);
  const left = JSON.parse(a) as Record<string, unknown>;
  const right = JSON.parse(b) as Record<string, unknown>;
  return [...new Set([...Object.keys(left), ...Object.keys(right)])]
    .filter((key) => !times.has(key))
    .filter((key) => JSON.stringify(left[key]) !== JSON.stringify(right[key]));
}

/** Settings a run directory holds once: outputs that differ in them cannot be one run. */
const RUN_SETTINGS = /^(bench|agent:.*|attempts:.*)$/;

function mergeEvaluation(source: string, out: string, result: MergeResult): void {
  // Made (or checked) by the store itself, so its schema and version are the store's.
  EvaluationStore.open(out).close();
  const from = new Database(path.join(source, STORE_FILE), { readonly: true });
  const into = new Database(path.join(out, STORE_FILE));
  try {
    const version = (db: Database.Database) =>
      (
        db.prepare(`SELECT value FROM meta WHERE key = 'schema'`).get() as
          { value: string } | undefined
      )?.value;
    if (version(from) !== version(into)) {
      throw new UserError(
        `${source} is of store schema ${version(from)}, not ${version(into)}: rescore or rerun it with this witnessgym`,
      );
    }
    into.transaction(() => {
      for (const { key, value } of from.prepare(`SELECT key, value FROM meta`).all() as {
        key: string;
        value: string;
      }[]) {
        const known = (
          into.prepare(`SELECT value FROM meta WHERE key = ?`).get(key) as
            { value: string } | undefined
        )?.value;
        if (known === undefined) into.prepare(`INSERT INTO meta VALUES (?, ?)`).run(key, value);
        else if (known !== value && RUN_SETTINGS.test(key)) {
          throw new UserError(
            `${source} was run with another ${key} (${value}) than ${out} (${known}): merge runs of one benchmark and one agent's settings`,
          );
        }
      }
      const rows = from
        .prepare(
          `SELECT case_id, agent, setting, attempt, started_at, finished_at, diagnosis, row FROM attempts WHERE state = 'done'`,
        )
        .all() as {
        case_id: string;
        agent: string;
        setting: string;
        attempt: number;
        started_at: string;
        finished_at: string;
        diagnosis: string;
        row: string;
      }[];
      for (const row of rows) {
        const known = into
          .prepare(
            `SELECT row FROM attempts WHERE case_id = ? AND agent = ? AND setting = ? AND attempt = ? AND state = 'done'`,
          )
          .get(row.case_id, row.agent, row.setting, row.attempt) as { row: string } | undefined;
        const unit = `${row.case_id} ${row.agent} ${row.setting} attempt ${row.attempt}`;
        if (!known) {
          into
            .prepare(`INSERT OR REPLACE INTO attempts VALUES (?, ?, ?, ?, 'done', ?, ?, ?, ?)`)
            .run(
              row.case_id,
              row.agent,
              row.setting,
              row.attempt,
              row.started_at,
              row.finished_at,
              row.diagnosis,
              row.row,
            );
          result.added++;
        } else {
          const differences = rowDifferences(known.row, row.row);
          if (differences.length === 0) result.same++;
          else {
            const held = (JSON.parse(known.row) as { diagnosis: { kind: string } }).diagnosis.kind;
            result.conflicts.push({
              unit,
              from: source,
              what: `${row.diagnosis} there, ${held} in ${out}; they differ in ${differences.join(', ')}`,
            });
          }
        }
      }
    })();
    // Outside the transaction: SQLite attaches and detaches only there.
    into.exec(`ATTACH DATABASE '${path.join(source, STORE_FILE).replace(/'/g, "''")}' AS source`);
    try {
      into.transaction(() => {
        into.exec(`INSERT OR IGNORE INTO files SELECT * FROM source.files`);
        into.exec(`INSERT OR IGNORE INTO rescores SELECT * FROM source.rescores`);
        for (const table of ['harness_faults', 'interruptions']) {
          into.exec(
            `INSERT INTO ${table} SELECT * FROM source.${table} EXCEPT SELECT * FROM ${table}`,
          );
        }
      })();
    } finally {
      into.exec(`DETACH DATABASE source`);
    }
  } finally {
    from.close();
    into.close();
  }
}

/** Copies a directory whole under its final name, or not at all. */
async function copyDirAtomic(from: string, to: string): Promise<void> {
  const temporary = `${to}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await cp(from, temporary, { recursive: true });
    await rename(temporary, to);
  } finally {
    await removeTree(temporary);
  }
}

function ledgerKey(entry: BuildCaseRecord): string {
  return JSON.stringify([entry.cell, entry.project, entry.injection, entry.transform]);
}

async function mergeBenchmark(source: string, out: string, result: MergeResult): Promise<void> {
  const from = benchLayout(source);
  const into = benchLayout(out);
  for (const id of await caseIds(source)) {
    const record = await readFile(path.join(from.caseDir(id), 'case.json'), 'utf8');
    const target = into.caseDir(id);
    if (await exists(path.join(target, 'case.json'))) {
      if ((await readFile(path.join(target, 'case.json'), 'utf8')) === record) result.same++;
      else
        result.conflicts.push({
          unit: id,
          from: source,
          what: 'another case record under the same id',
        });
      continue;
    }
    // The hidden witness first: a case directory without it could not be evaluated.
    await removeTree(into.hiddenDir(id));
    await copyDirAtomic(from.hiddenDir(id), into.hiddenDir(id));
    await removeTree(target);
    await copyDirAtomic(from.caseDir(id), target);
    result.added++;
  }
  const ledgerFile = (dir: string, name: string) => path.join(dir, 'build', name);
  const known = new Map(
    (await readRecords(ledgerFile(out, 'cases.jsonl'), BuildCaseLine)).records.map((entry) => [
      ledgerKey(entry),
      entry,
    ]),
  );
  const fresh: BuildCaseRecord[] = [];
  for (const entry of (await readRecords(ledgerFile(source, 'cases.jsonl'), BuildCaseLine))
    .records) {
    const key = ledgerKey(entry);
    const held = known.get(key);
    if (!held) {
      known.set(key, entry);
      fresh.push(entry);
    } else if (JSON.stringify(held.outcome) !== JSON.stringify(entry.outcome)) {
      result.conflicts.push({
        unit: `ledger ${entry.project} ${entry.injection} depth ${entry.cell.depth}`,
        from: source,
        what: `${entry.outcome.kind} here, ${held.outcome.kind} in ${out}`,
      });
    }
  }
  await appendRecords(ledgerFile(out, 'cases.jsonl'), BuildCaseLine, fresh);
  const finished = (await readRecords(ledgerFile(out, 'finished.jsonl'), FinishedBucketLine))
    .records;
  const seen = new Set(finished.map((record) => JSON.stringify(record)));
  await appendRecords(
    ledgerFile(out, 'finished.jsonl'),
    FinishedBucketLine,
    (await readRecords(ledgerFile(source, 'finished.jsonl'), FinishedBucketLine)).records.filter(
      (record) => !seen.has(JSON.stringify(record)),
    ),
  );
}

async function mergeStrengthening(source: string, out: string, result: MergeResult): Promise<void> {
  const instances = path.join(source, 'instances');
  for (const id of (await readdir(instances)).sort()) {
    const report = path.join(instances, id, 'report.json');
    if (!(await exists(report))) continue;
    const target = path.join(out, 'instances', id);
    if (await exists(path.join(target, 'report.json'))) {
      const same =
        (await readFile(path.join(target, 'report.json'), 'utf8')) ===
        (await readFile(report, 'utf8'));
      if (same) result.same++;
      else
        result.conflicts.push({ unit: id, from: source, what: 'another report for the instance' });
      continue;
    }
    await removeTree(target);
    await copyDirAtomic(path.join(instances, id), target);
    result.added++;
  }
}
