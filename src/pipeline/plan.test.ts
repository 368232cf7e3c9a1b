import { describe, expect, it } from 'vitest';
import { loadBugTypeSpecs } from '../stages/2-inject/spec.js';
import { loadTransformSpecs } from '../stages/3-transform/spec.js';
import { cellKey, loadPlan, parsePlan, planCells, type PlanCell } from './plan.js';

const GUARD = 'logic_predicate_inversion_in_guard';

async function cellsOf(name: string): Promise<PlanCell[]> {
  return planCells(await loadPlan(name), await loadBugTypeSpecs(), await loadTransformSpecs());
}

const total = (cells: PlanCell[]) => cells.reduce((sum, cell) => sum + cell.wanted, 0);

describe('build plans', () => {
  it("reproduces the paper's composition: 1,300 cases, 688 of the anchor type, 68 of each other", async () => {
    const cells = await cellsOf('paper');
    expect(total(cells)).toBe(1300);
    const byType = new Map<string, number>();
    for (const cell of cells) byType.set(cell.typeId, (byType.get(cell.typeId) ?? 0) + cell.wanted);
    expect(byType.get(GUARD)).toBe(688);
    expect([...byType].filter(([id]) => id !== GUARD).map(([, n]) => n)).toEqual(Array(9).fill(68));
    // RQ3/RQ4: 25 of the anchor type in each of 4 buckets × 4 depths.
    const grid = cells.filter((cell) => cell.typeId === GUARD);
    expect(grid).toHaveLength(16);
    expect(grid.every((cell) => cell.wanted >= 25)).toBe(true);
    // RQ2: 25 short and 25 long at depth 3 for every type, all with one operator sequence.
    const rq2 = cells.filter((cell) => cell.depth === 3 && ['short', 'long'].includes(cell.bucket));
    expect(new Set(rq2.map((cell) => cell.typeId)).size).toBe(10);
    expect(rq2.every((cell) => cell.wanted >= 25)).toBe(true);
    expect(new Set(rq2.map((cell) => cell.sequence.join(' '))).size).toBe(1);
    expect(rq2[0]!.sequence).toEqual([
      't_rare_profile_gate_v1',
      't_call_stack_deepen_v1',
      't_private_adapter_layer_v1',
    ]);
  });

  it('uses every operator in the depth-10 sequence of both shipped plans', async () => {
    for (const name of ['paper', 'smoke']) {
      const deepest = (await cellsOf(name)).find((cell) => cell.depth === 10)!;
      expect(new Set(deepest.sequence).size).toBe(10);
    }
    const smoke = await cellsOf('smoke');
    expect(total(smoke)).toBe(13);
  });

  it('applies the operators the depth-10 sequence reaches last on their own in the coverage plan', async () => {
    const cells = await cellsOf('coverage');
    const alone = new Set(
      cells.filter((cell) => cell.key.sequence).map((cell) => cell.sequence.join(' ')),
    );
    expect([...alone].sort()).toEqual([
      't_cached_value_access_v1',
      't_extract_apply_split_v1',
      't_nested_data_access_v1',
      't_parameter_bundle_v1',
      't_pipeline_stage_split_v1',
    ]);
    expect(new Set(cells.map((cell) => cell.typeId)).size).toBe(10);
  });

  const transformsAndTypes = async () =>
    [await loadBugTypeSpecs(), await loadTransformSpecs()] as const;

  it('refuses a sequence of the wrong length, an unknown id, or a cell declared twice', async () => {
    const [types, transforms] = await transformsAndTypes();
    const plan = (sequence: string, groups: string) =>
      parsePlan(
        `name: t\ndescription: d\nsequences:\n  '1': ${sequence}\ngroups:\n${groups}`,
        't.yaml',
      );
    const group = (types: string, purpose = 'g') =>
      `  - {purpose: ${purpose}, types: ${types}, buckets: [short], depths: [1], perCell: 1}\n`;
    expect(() =>
      planCells(
        plan('[t_call_stack_deepen_v1, t_rare_profile_gate_v1]', group('all')),
        types,
        transforms,
      ),
    ).toThrow(/depth-1 sequence lists 2 operators/);
    expect(() => planCells(plan('[t_nope_v1]', group('all')), types, transforms)).toThrow(
      /unknown operator 't_nope_v1'/,
    );
    expect(() =>
      planCells(plan('[t_call_stack_deepen_v1]', group('[nope]')), types, transforms),
    ).toThrow(/unknown bug type 'nope'/);
    expect(() =>
      planCells(
        plan('[t_call_stack_deepen_v1]', group('all', 'a') + group(`[${GUARD}]`, 'b')),
        types,
        transforms,
      ),
    ).toThrow(/cell logic_predicate_inversion_in_guard\/short\/1 is in both 'a' and 'b'/);
    expect(() =>
      parsePlan(
        'name: t\ndescription: d\nsequences: {}\ngroups:\n' +
          group('all').replace('depths: [1]', 'depths: [2]'),
        't.yaml',
      ),
    ).toThrow(
      /^plan t\.yaml is malformed at groups\.0\.depths\.0: expected one of 1, 3, 5, 10; see plans\/smoke\.yaml/,
    );
  });

  it('puts the cells of a sameBugAcrossDepths group in one series per type and bucket, and every other cell in its own', async () => {
    const cells = await cellsOf('paper');
    const anchor = cells.filter((cell) => cell.typeId === GUARD);
    const seriesOf = (bucket: string) =>
      new Set(anchor.filter((cell) => cell.bucket === bucket).map((cell) => cell.series));
    expect(seriesOf('short').size).toBe(1);
    expect(seriesOf('short')).not.toEqual(seriesOf('long'));
    const others = cells.filter((cell) => cell.typeId !== GUARD);
    expect(new Set(others.map((cell) => cell.series)).size).toBe(others.length);
    const smoke = await cellsOf('smoke');
    expect(new Set(smoke.map((cell) => cell.series)).size).toBe(smoke.length);
  });

  it("gives a group's own sequence cells of their own, checked like the plan's", async () => {
    const [types, transforms] = await transformsAndTypes();
    const plan = (own: string) =>
      parsePlan(
        `name: t\ndescription: d\nsequences:\n  '1': [t_call_stack_deepen_v1]\ngroups:\n` +
          `  - {purpose: plain, types: [${GUARD}], buckets: [short], depths: [1], perCell: 1}\n` +
          `  - {purpose: own, types: [${GUARD}], buckets: [short], depths: [1], perCell: 2, sequences: {'1': ${own}}}\n`,
        't.yaml',
      );
    const cells = planCells(plan('[t_parameter_bundle_v1]'), types, transforms);
    expect(cells.map((cell) => [cellKey(cell.key), cell.sequence, cell.wanted])).toEqual([
      [`${GUARD}/short/1`, ['t_call_stack_deepen_v1'], 1],
      [`${GUARD}/short/1/t_parameter_bundle_v1`, ['t_parameter_bundle_v1'], 2],
    ]);
    expect(() =>
      planCells(plan('[t_parameter_bundle_v1, t_cached_value_access_v1]'), types, transforms),
    ).toThrow(/depth-1 sequence of group 'own' lists 2 operators/);
    // The plan's own sequence given again is the plan's cell, declared twice.
    expect(() => planCells(plan('[t_call_stack_deepen_v1]'), types, transforms)).toThrow(
      /is in both 'plain' and 'own'/,
    );
  });

  it('names a missing plan in one line', async () => {
    await expect(loadPlan('nope')).rejects.toThrow(/plan nope not found/);
  });
});
