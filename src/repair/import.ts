import { sidePath } from '../core/diff-stats.js';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { applyPatch, parsePatch } from 'diff';
import { UserError } from '../core/errors.js';
import { copyProjectTree, exists, makeTempDir, removeTree } from '../core/fs.js';
import { fromDefects4j } from './adapters/defects4j.js';
import { fromMultiSweBench, testSourcesIn } from './adapters/multi-swe-bench.js';
import type { RepairInstance } from './instance.js';
import { writeInstanceFile } from './read.js';

/*
 * `witnessgym instances import`: instances from other layouts, written as an instance file. The
 * snapshots stay where they are; the file names them relative to itself.
 */

export type ImportSource =
  | { kind: 'multi-swe-bench'; records: string; snapshots: string }
  | { kind: 'defects4j'; projectDir: string; bugs: number[]; snapshots: string };

/** A tree with a patch applied on top, in a temporary copy (for reading the patched tests). */
async function patchedCopy(snapshot: string, diff: string): Promise<string> {
  const copy = path.join(await makeTempDir('import'), 'tree');
  await copyProjectTree(snapshot, copy);
  for (const filePatch of diff.trim() === '' ? [] : parsePatch(diff)) {
    const file = sidePath(filePatch.newFileName) ?? '';
    if (file === '' || file === '/dev/null') continue;
    const target = path.join(copy, file);
    const before = await readFile(target, 'utf8').catch(() => '');
    const after = applyPatch(before, filePatch);
    if (after === false)
      throw new UserError(`the test patch does not apply to ${file} of ${snapshot}`);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, after);
  }
  return copy;
}

/** Where a record's snapshot is: `<snapshots>/<id>`, or `<snapshots>` itself when it is a tree. */
async function snapshotOf(snapshots: string, id: string): Promise<string> {
  const own = path.join(snapshots, id);
  if (await exists(own)) return own;
  if (await exists(path.join(snapshots, 'pom.xml'))) return snapshots;
  throw new UserError(`no snapshot for ${id}: neither ${own} nor a Maven tree at ${snapshots}`);
}

export async function importInstances(
  source: ImportSource,
  out: string,
): Promise<RepairInstance[]> {
  const outDir = path.dirname(path.resolve(out));
  const relative = (dir: string) => path.relative(outDir, path.resolve(dir)) || '.';
  const instances: RepairInstance[] = [];
  if (source.kind === 'multi-swe-bench') {
    const text = await readFile(source.records, 'utf8').catch(() => {
      throw new UserError(`${source.records} cannot be read`);
    });
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    for (const [index, line] of lines.entries()) {
      let record: {
        org?: unknown;
        repo?: unknown;
        number?: unknown;
        instance_id?: unknown;
        test_patch?: unknown;
      };
      try {
        record = JSON.parse(line) as typeof record;
      } catch {
        throw new UserError(`${source.records}:${index + 1}: not JSON`);
      }
      const id =
        typeof record.instance_id === 'string'
          ? record.instance_id
          : `${String(record.org)}__${String(record.repo)}-${String(record.number)}`;
      const snapshot = await snapshotOf(source.snapshots, id);
      const tree = await patchedCopy(
        snapshot,
        typeof record.test_patch === 'string' ? record.test_patch : '',
      );
      try {
        instances.push(
          await fromMultiSweBench(record, {
            snapshot: relative(snapshot),
            testSources: testSourcesIn(tree),
          }),
        );
      } finally {
        await removeTree(path.dirname(tree));
      }
    }
  } else {
    for (const bug of source.bugs) {
      const project = path.basename(path.resolve(source.projectDir));
      const snapshot = await snapshotOf(source.snapshots, `${project}-${bug}b`);
      instances.push(
        await fromDefects4j({ metadataDir: source.projectDir, bug, snapshot: relative(snapshot) }),
      );
    }
  }
  await writeInstanceFile(out, instances);
  return instances;
}
