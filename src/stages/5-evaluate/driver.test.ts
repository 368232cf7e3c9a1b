import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheLayout } from '../../core/cache.js';
import { UserError } from '../../core/errors.js';
import { makeTempDir } from '../../core/fs.js';
import { silent } from '../../events/types.js';
import { agentNetwork } from '../../agents/flags.js';
import { rescoreRun, runEvaluate, type EvaluateStageOptions } from './driver.js';
import { EvaluationStore } from './store.js';

const options = (overrides: Partial<EvaluateStageOptions>): EvaluateStageOptions => ({
  agent: 'witness',
  setting: 'both',
  attempts: 3,
  concurrency: 1,
  verifyTimeout: 1200,
  caseTimeout: 4200,
  runs: 3,
  agentTimeout: 1800,
  ...overrides,
});

describe('witnessgym evaluate: user mistakes are one clear error, and nothing is written', () => {
  it('refuses what is not a benchmark, an unknown agent, a bad setting, a stray script', async () => {
    const dir = await makeTempDir('evaluate-command');
    const bench = path.join(dir, 'bench');
    await mkdir(bench);
    const cache = cacheLayout(path.join(dir, 'cache'));
    const run = (o: Partial<EvaluateStageOptions>, where = bench) =>
      runEvaluate(where, options({ run: path.join(dir, 'run'), ...o }), cache, silent);
    await expect(run({})).rejects.toThrow(/is not a benchmark/);
    await writeFile(path.join(bench, 'cases.jsonl'), '');
    await expect(run({ agent: 'gpt' })).rejects.toThrow(/unknown agent 'gpt': use one of witness/);
    await expect(run({ setting: 'Both' })).rejects.toThrow(
      /--setting must be NoEC, WithEC or both/,
    );
    await expect(run({ script: 'x.json' })).rejects.toBeInstanceOf(UserError);
    await expect(run({ cases: ['nothing*'] })).rejects.toThrow(/no case of .* matches/);
    await expect(stat(path.join(dir, 'run'))).rejects.toThrow();
  });
});

describe('agentNetwork: what the sandboxed agent may reach', () => {
  it("defaults to a vendor CLI's endpoints and to nothing for command", () => {
    expect(agentNetwork(options({ agent: 'claude-code' }))).toEqual({
      kind: 'allow',
      endpoints: ['api.anthropic.com:443'],
    });
    expect(agentNetwork(options({ agent: 'codex' }))).toEqual({
      kind: 'allow',
      endpoints: ['api.openai.com:443'],
    });
    expect(agentNetwork(options({ agent: 'command' }))).toEqual({ kind: 'none' });
  });

  it('takes --allow-endpoint instead of the defaults, and --no-network for nothing', () => {
    const local = ['127.0.0.1:4000'];
    expect(agentNetwork(options({ agent: 'claude-code', allowEndpoint: local }))).toEqual({
      kind: 'allow',
      endpoints: local,
    });
    expect(agentNetwork(options({ agent: 'command', allowEndpoint: local }))).toEqual({
      kind: 'allow',
      endpoints: local,
    });
    expect(agentNetwork(options({ agent: 'codex', network: false }))).toEqual({ kind: 'none' });
  });

  it('refuses a malformed endpoint and --no-network with --allow-endpoint', () => {
    expect(() =>
      agentNetwork(options({ agent: 'command', allowEndpoint: ['https://example.com'] })),
    ).toThrow(UserError);
    expect(() =>
      agentNetwork(options({ agent: 'codex', network: false, allowEndpoint: ['a.example:443'] })),
    ).toThrow(/contradict/);
  });
});

describe('witnessgym rescore: user mistakes are one clear error', () => {
  it('refuses what is not a run, a run without a known benchmark, and a --bench that is none', async () => {
    const dir = await makeTempDir('rescore-command');
    const cache = cacheLayout(path.join(dir, 'cache'));
    const rescore = (run: string, bench?: string) =>
      rescoreRun(run, { runs: 3, verifyTimeout: 1200, ...(bench ? { bench } : {}) }, cache, silent);
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
