import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheLayout } from '../core/cache.js';
import { makeTempDir } from '../core/fs.js';
import { silent } from '../events/types.js';
import { EvaluationStore } from '../stages/5-evaluate/store.js';
import { runRescoreCommand } from './rescore-command.js';

describe('witnessgym rescore: user mistakes are one clear error', () => {
  it('refuses what is not a run, a run without a known benchmark, and a --bench that is none', async () => {
    const dir = await makeTempDir('rescore-command');
    const cache = cacheLayout(path.join(dir, 'cache'));
    const rescore = (run: string, bench?: string) =>
      runRescoreCommand(
        run,
        { runs: 3, verifyTimeout: 1200, ...(bench ? { bench } : {}) },
        cache,
        silent,
      );
    await expect(rescore(path.join(dir, 'nothing'))).rejects.toThrow(/holds no evaluation results/);

    // A run made before the benchmark was recorded.
    const run = path.join(dir, 'run');
    EvaluationStore.open(run).close();
    await expect(rescore(run)).rejects.toThrow(/does not record its benchmark.*--bench DIR/);
    await expect(rescore(run, path.join(dir, 'nothing'))).rejects.toThrow(/is not a benchmark/);

    // At its default place, <bench>/evaluation, the run's benchmark is the directory holding it.
    const bench = path.join(dir, 'bench');
    await mkdir(bench);
    await writeFile(path.join(bench, 'cases.jsonl'), '');
    const atDefault = path.join(bench, 'evaluation');
    EvaluationStore.open(atDefault).close();
    await expect(rescore(atDefault)).resolves.toMatchObject({ bench, rows: 0, changed: 0 });
    // The benchmark given once is recorded for the next rescore.
    await rescore(run, bench);
    await expect(rescore(run)).resolves.toMatchObject({ bench });
  });
});
