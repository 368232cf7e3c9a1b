import { describe, expect, it } from 'vitest';
import { parseReport } from '../../../agents/report.js';
import { transformSystemPrompt, transformTaskPayload } from './prompts.js';
import { transformReportFormat } from './report.js';
import { demoTransformTask, DEMO_TRANSFORM_SPEC } from './test-support.js';

describe('transformSystemPrompt', () => {
  it('keeps the bug, forbids test and build edits, and asks for the report line', () => {
    const prompt = transformSystemPrompt();
    for (const text of [
      'MISSION:',
      'NON-NEGOTIABLE RULES:',
      'Do not fix, weaken or move away from the bug',
      'Never edit any test code, build files',
      'no constant conditions such as if (false)',
      'one attempt per transformation step',
      'TRANSFORM_REPORT_JSON:',
    ]) {
      expect(prompt).toContain(text);
    }
  });
});

describe('transformTaskPayload', () => {
  it('quotes the spec, the bug, the sequence, the context and the replay command', () => {
    const task = demoTransformTask();
    const payload = transformTaskPayload(task);
    const spec = DEMO_TRANSFORM_SPEC;
    expect(payload).toContain(`replay_command: ${task.replayCommand}\n`);
    expect(payload).toContain(`transform_id: ${spec.id}\n`);
    expect(payload).toContain('transform_step: 2 of 2\n');
    expect(payload).toContain(
      'transform_ids:\n- t_private_adapter_layer_v1\n- t_call_stack_deepen_v1\n',
    );
    expect(payload).toContain(
      'paper_facing_transform_terms:\n- Call-Site Rerouting\n- Helper Call Insertion\n',
    );
    expect(payload).toContain(
      'Steps applied before this one, whose code you may wrap or split further: t_private_adapter_layer_v1.',
    );
    expect(payload).toContain(`- paper_facing_operator: ${spec.operator}`);
    expect(payload).toContain(`- applicability: ${spec.applicability}`);
    expect(payload).toContain(`- forbidden_edits: ${spec.forbiddenEdits.join(', ')}`);
    expect(payload).toContain(`- must_preserve: ${spec.mustPreserve.join(', ')}`);
    expect(payload).toContain(`- post_conditions: ${spec.postConditions.join(', ')}`);
    expect(payload).toContain('    return sum();');
    expect(payload).toContain(
      '- file: src/main/java/p/Counter.java\n- lines:\n    if (step < 0) {\n',
    );
    expect(payload).toContain('"methods_count": 3');
    expect(payload).toContain('- p.Counter.add(int)\n  file: src/main/java/p/Counter.java');
    expect(payload).toContain('Do not modify src/test/java/p/CounterTest.java');
    expect(payload).toContain('java_release: 8\n');
  });

  it('says when the step is the first', () => {
    const payload = transformTaskPayload(
      demoTransformTask({
        step: {
          number: 1,
          sequence: [{ id: DEMO_TRANSFORM_SPEC.id, operator: 'Helper Call Insertion' }],
        },
      }),
    );
    expect(payload).toContain('This is the first transformation step.');
    expect(payload).toContain('transform_step: 1 of 1\n');
  });

  it('shows a report template the parser accepts for this step', () => {
    const task = demoTransformTask();
    const template = transformTaskPayload(task).split('\n').at(-1)!;
    expect(parseReport(template, transformReportFormat(task.spec.id))).toMatchObject({
      kind: 'Parsed',
      mismatches: [],
    });
  });
});
