import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../../core/fs.js';
import { EvaluationStore } from '../5-evaluate/store.js';
import { runTables } from './driver.js';

describe('report of a directory without results', () => {
  it("points at a benchmark's evaluation directory when given the benchmark", async () => {
    const bench = await makeTempDir('report-driver');
    EvaluationStore.open(path.join(bench, 'evaluation')).close();
    await expect(runTables(bench)).rejects.toThrow(
      `run 'witnessgym report ${path.join(bench, 'evaluation')}'`,
    );
  });

  it('names the run directory evaluate writes to, never --run of the directory given', async () => {
    const dir = await makeTempDir('report-driver');
    const error = runTables(dir);
    await expect(error).rejects.toThrow(/<bench>\/evaluation unless its --run named another$/);
    await expect(error).rejects.not.toThrow('--run ' + dir);
  });
});
