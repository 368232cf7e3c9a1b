import { describe, expect, it } from 'vitest';
import { UserError } from '../../core/errors.js';
import {
  loadTransformSpecs,
  parseTransformSpec,
  selectTransforms,
  TRANSFORM_FAMILIES,
} from './spec.js';

describe('transform specs', () => {
  it("declares the paper's ten operators in its three families", async () => {
    const specs = await loadTransformSpecs();
    expect(specs.map((spec) => spec.operator).sort()).toEqual([
      'Cached Value Access',
      'Call-Site Rerouting',
      'Extract-and-Apply Split',
      'Helper Call Insertion',
      'Intermediate State Passing',
      'Local State Bundling',
      'Nested Data Access',
      'Parameter Bundling',
      'Pipeline Stage Split',
      'Rare Input Path Conditioning',
    ]);
    const perFamily = TRANSFORM_FAMILIES.map(
      (family) => specs.filter((spec) => spec.family === family).length,
    );
    expect(perFamily).toEqual([3, 6, 1]);
    // The ids the paper's own prompts name.
    expect(specs.map((spec) => spec.id)).toEqual(
      expect.arrayContaining([
        't_call_stack_deepen_v1',
        't_private_adapter_layer_v1',
        't_rare_profile_gate_v1',
      ]),
    );
    for (const spec of specs)
      expect(spec.forbiddenEdits).toContain('changes_to_public_API_signatures');
    // Only the gate may make an input that exposes the bug correct.
    expect(specs.filter((spec) => spec.bugReach === 'narrowed').map((spec) => spec.id)).toEqual([
      't_rare_profile_gate_v1',
    ]);
  });

  it('reports a malformed spec with the field at fault', () => {
    expect(() => parseTransformSpec('id: helper1\n', 'bad.yaml')).toThrow(UserError);
    expect(() => parseTransformSpec('id: helper1\n', 'bad.yaml')).toThrow(
      /transform spec bad.yaml is malformed: id: id: t_<name>_v<n>/,
    );
    expect(() =>
      parseTransformSpec('id: t_x_v1\noperator: X\nfamily: Loops\n', 'bad.yaml'),
    ).toThrow(/family/);
  });

  it('selects operators by id or all, and names unknown ids', async () => {
    const specs = await loadTransformSpecs();
    expect(selectTransforms(specs, 'all')).toHaveLength(10);
    expect(selectTransforms(specs, 't_rare_profile_gate_v1').map((s) => s.operator)).toEqual([
      'Rare Input Path Conditioning',
    ]);
    expect(() => selectTransforms(specs, 't_nope_v1')).toThrow(
      /unknown transform 't_nope_v1' in --transforms/,
    );
  });
});
