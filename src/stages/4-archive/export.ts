import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import { exists, writeFileAtomic } from '../../core/fs.js';
import type { ProjectRef } from '../../project/project.js';
import { benchLayout, caseIds, indexText, readCaseFile, rebuildIndex } from './archive.js';
import { caseProject, materialiseCase } from './materialise.js';

export interface ExportSummary {
  out: string;
  cases: number;
  /** Snapshots written now, and left as an earlier export wrote them. */
  written: number;
  existing: number;
  /** Cases whose files do not hold what their record says, with why (not exported). */
  corrupt: { caseId: string; reason: string }[];
}

/**
 * `witnessgym case export`: every case's buggy tree as a full snapshot `<out>/<case-id>/`, and the
 * benchmark's index (rebuilt from the case directories) as `<out>/cases.jsonl`. A snapshot already
 * there is complete (each is renamed into place), so a rerun writes only what is missing.
 */
export async function exportBenchmark(
  benchDir: string,
  outDir: string,
  cache: CacheLayout,
  options: { hideWitness: boolean },
): Promise<ExportSummary> {
  const bench = benchLayout(benchDir);
  const out = path.resolve(outDir);
  await mkdir(out, { recursive: true });
  const projects = new Map<string, Promise<ProjectRef>>();
  const summary: ExportSummary = { out, cases: 0, written: 0, existing: 0, corrupt: [] };
  for (const id of await caseIds(bench.root)) {
    summary.cases++;
    const snapshot = path.join(out, id);
    if (await exists(snapshot)) {
      summary.existing++;
      continue;
    }
    const record = await readCaseFile(bench.caseDir(id));
    const key = `${record.project.name}@${record.project.version}`;
    if (!projects.has(key)) projects.set(key, caseProject(record, cache));
    const outcome = await materialiseCase(
      bench.caseDir(id),
      record,
      await projects.get(key)!,
      snapshot,
      {
        side: 'buggy',
        hideWitness: options.hideWitness,
        hideFixtures: options.hideWitness,
      },
    );
    if (outcome.kind === 'Corrupt') summary.corrupt.push({ caseId: id, reason: outcome.reason });
    else summary.written++;
  }
  const corrupt = new Set(summary.corrupt.map((entry) => entry.caseId));
  const entries = (await rebuildIndex(bench.root)).filter(
    (entry) => !corrupt.has(entry.instance_id),
  );
  await writeFileAtomic(path.join(out, 'cases.jsonl'), indexText(entries));
  return summary;
}
