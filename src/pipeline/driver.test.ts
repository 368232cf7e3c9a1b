import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheLayout } from '../core/cache.js';
import { UserError } from '../core/errors.js';
import { makeTempDir } from '../core/fs.js';
import { silent } from '../events/types.js';
import { recordedInputs, runBuildCommand, type BuildCommandOptions } from './driver.js';

const options = {
  seed: 1,
  workers: 1,
  out: '/nonexistent/bench',
  maven: false,
  maxTries: 1,
  spare: 0,
  candidates: 1,
  otherClasses: 0,
  collateralLimit: 0,
};
const cache = cacheLayout('/nonexistent/cache');

describe('witnessgym build: what to build', () => {
  it('asks for a plan or cells, and not both, before any work', async () => {
    await expect(runBuildCommand(['json-simple'], options, cache, silent)).rejects.toThrow(
      /say what to build: --plan/,
    );
    await expect(
      runBuildCommand(['json-simple'], { ...options, plan: 'smoke', types: 'all' }, cache, silent),
    ).rejects.toThrow(UserError);
    await expect(
      runBuildCommand(['json-simple'], { ...options, types: 'all', depths: '2' }, cache, silent),
    ).rejects.toThrow(/--depths: '2' is not one of 1, 3, 5, 10/);
  });
});

describe('witnessgym build: usage errors, in one line, before anything is written', () => {
  async function refusal(given: Partial<BuildCommandOptions>): Promise<string> {
    const out = path.join(await makeTempDir('build-usage'), 'bench');
    const error: unknown = await runBuildCommand(
      ['json-simple'],
      { ...options, out, ...given },
      cache,
      silent,
    ).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(UserError);
    const message = (error as UserError).message;
    expect(message.split('\n')).toHaveLength(1);
    await expect(stat(out)).rejects.toMatchObject({ code: 'ENOENT' });
    return message;
  }

  it('refuses a bucket that is not one, echoing it', async () => {
    expect(await refusal({ types: 'all', buckets: 'short,shrt' })).toBe(
      "--buckets: 'shrt' is not one of short, mid-short, mid-long, long",
    );
  });

  it('echoes a depth as typed, not as the number it failed to be', async () => {
    expect(await refusal({ types: 'all', depths: '1,3,x' })).toBe(
      "--depths: 'x' is not one of 1, 3, 5, 10",
    );
    expect(await refusal({ types: 'all', depths: '1,' })).toMatch(/^--depths: '' is not one of/);
  });

  it('lists the known bug types after an unknown one', async () => {
    const message = await refusal({ types: 'logic_predicate_inversion_in_guard,no_such_type' });
    expect(message).toMatch(/^--types: 'no_such_type' is not one of /);
    expect(message).toContain('logic_predicate_inversion_in_guard');
  });

  it('points a malformed plan at a shipped example instead of dumping the schema', async () => {
    const dir = await makeTempDir('build-plan');
    const plan = path.join(dir, 'mine.yaml');
    await writeFile(
      plan,
      'name: mine\ndescription: mine\nsequences: {}\ngroups:\n  - purpose: p\n    types: all\n    buckets: [shrt]\n    depths: [one]\n    perCell: 1\n',
    );
    const message = await refusal({ plan });
    expect(message).toMatch(
      /^plan mine\.yaml is malformed at groups\.0\.buckets\.0: .* \(and 1 more\); see plans\/smoke\.yaml/,
    );
    await writeFile(plan, 'name: [mine\n');
    expect(await refusal({ plan })).toMatch(/^plan mine\.yaml is not valid YAML \(.*\); see plans/);
  });
});

describe('a build directory', () => {
  it('is refused to another seed, and to a witnessgym whose ledger it cannot read', async () => {
    const out = await makeTempDir('build-inputs');
    const inputs = { id: 'a', projects: ['p@1'], plan: 'smoke', seed: 1, cells: [] };
    await recordedInputs(out, inputs);
    await recordedInputs(out, inputs);
    await expect(recordedInputs(out, { ...inputs, id: 'b', seed: 7 })).rejects.toThrow(
      /holds a build with --seed 1: rerun with that seed/,
    );
    await expect(recordedInputs(out, { ...inputs, id: 'b' })).rejects.toThrow(
      /holds a build an older witnessgym wrote .*: pass another --out/,
    );
  });
});
