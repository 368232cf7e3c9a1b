/**
 * Independent re-validation of accepted injections: every record's buggy state, in the given
 * inject output directories, is materialised afresh from the cached pristine tree, and the CLI's
 * Maven replay (`witnessgym replay <copy> --recipe <name> --test <witness>`, a separate process)
 * must report TestFailed or TestErrored. Prints counts per bug type and every mismatch.
 *
 *   npm run bench:inject-revalidate -- --dirs out1,out2 [--out results.jsonl]
 */
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { makeTempDir, removeTree } from '../src/core/fs.js';
import { packageRoot } from '../src/core/package-root.js';
import { runProcess } from '../src/core/process.js';
import { resolveProject } from '../src/project/project.js';
import { materialise } from '../src/project/state.js';
import { readRecords } from '../src/records/record.js';
import { InjectionLine } from '../src/stages/2-inject/records.js';
import { formatTable } from './lib/candidates.js';

const { values } = parseArgs({
  options: { dirs: { type: 'string' }, out: { type: 'string' } },
});
if (!values.dirs) {
  process.stderr.write(
    'inject-revalidate: --dirs <inject output dirs, comma-separated> is required\n',
  );
  process.exit(2);
}
const cache = cacheLayout(resolveCacheDir());
const cliPath = path.join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
const byType = new Map<string, { accepted: number; confirmed: number }>();
const mismatches: string[] = [];
for (const dir of values.dirs.split(',')) {
  const { records } = await readRecords(path.join(dir, 'injections.jsonl'), InjectionLine);
  for (const record of records) {
    const name = record.state.base.name;
    const label = `${name}@${record.state.base.version}`;
    const project = await resolveProject(name, cache);
    const work = await makeTempDir('revalidate');
    const copy = path.join(work, 'project');
    let kind = 'not replayed';
    try {
      if (project.base.commit !== record.state.base.commit) {
        kind = `the cached ${label} is not the base the bug was made on`;
      } else {
        await materialise(record.state, project.root, copy);
        const replay = await runProcess(process.execPath, [
          cliPath,
          'replay',
          copy,
          '--recipe',
          name,
          '--test',
          record.witness.testClass,
          '--json',
        ]);
        kind = (JSON.parse(replay.stdout) as { verdict: { kind: string } }).verdict.kind;
      }
    } finally {
      await removeTree(work);
    }
    const exposed = kind === 'TestFailed' || kind === 'TestErrored';
    const tally = byType.get(record.bugType.id) ?? { accepted: 0, confirmed: 0 };
    tally.accepted++;
    if (exposed) tally.confirmed++;
    byType.set(record.bugType.id, tally);
    if (!exposed) mismatches.push(`${label} ${record.id} ${record.bugType.id}: ${kind}`);
    process.stderr.write(`${label} ${record.id} ${record.bugType.id}: ${kind}\n`);
    if (values.out) {
      await appendFile(
        values.out,
        `${JSON.stringify({ id: record.id, project: label, typeId: record.bugType.id, kind })}\n`,
      );
    }
  }
}
const rows = [...byType]
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([typeId, t]) => [typeId, String(t.accepted), String(t.confirmed)]);
const total = [...byType.values()].reduce(
  (sum, t) => ({ accepted: sum.accepted + t.accepted, confirmed: sum.confirmed + t.confirmed }),
  { accepted: 0, confirmed: 0 },
);
process.stdout.write(
  `${formatTable(['type', 'accepted', 'Maven replay fails'], rows)}\n` +
    `re-validated: ${total.confirmed}/${total.accepted} accepted injections fail their witness under witnessgym replay (Maven)\n` +
    mismatches.map((m) => `  mismatch: ${m}\n`).join(''),
);
