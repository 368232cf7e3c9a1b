import type { TransformSpec } from '../spec.js';
import type { TransformTask } from './task.js';

/** A transform spec written out for tests, so edits to the spec files move no pin or prompt. */
export const DEMO_TRANSFORM_SPEC: TransformSpec = {
  id: 't_call_stack_deepen_v1',
  operator: 'Helper Call Insertion',
  family: 'Call Stack',
  name: 'Deepen call stack with a natural helper extraction',
  description: 'Introduce a small private helper between the caller and the bug site.',
  applicability: 'at_least_one_mid_level_helper_candidate',
  bugReach: 'kept',
  forbiddenEdits: ['changes_to_public_API_signatures', 'broad_refactors'],
  mustPreserve: ['compilation_success', 'behavior_for_non_trigger_inputs'],
  postConditions: ['additional_helper_in_call_chain'],
  example: { before: 'int f() {\n    return a + b;\n}', after: 'int f() {\n    return sum();\n}' },
};

export function demoTransformTask(overrides: Partial<TransformTask> = {}): TransformTask {
  return {
    spec: DEMO_TRANSFORM_SPEC,
    projectLabel: 'demo@1.0',
    workspace: '/nonexistent/workspace',
    runId: 'transform-0123456789abcdef',
    bugType: { id: 'logic_predicate_inversion_in_guard', name: 'Guard Predicate Inversion' },
    witness: { testClass: 'p.CounterTest', testFile: 'src/test/java/p/CounterTest.java' },
    context: {
      size: 3,
      bucket: 'short',
      anchors: [{ method: 'p.Counter.add(int)', file: 'src/main/java/p/Counter.java' }],
    },
    step: {
      number: 2,
      sequence: [
        { id: 't_private_adapter_layer_v1', operator: 'Call-Site Rerouting' },
        { id: 't_call_stack_deepen_v1', operator: 'Helper Call Insertion' },
      ],
    },
    bug: { file: 'src/main/java/p/Counter.java', lines: ['if (step < 0) {'] },
    javaRelease: '8',
    replayCommand: 'node witness.mjs',
    ...overrides,
  };
}
