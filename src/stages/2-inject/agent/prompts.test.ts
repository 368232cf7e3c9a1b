import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bugTypesDir, parseBugTypeSpec, type BugTypeSpec } from '../spec.js';
import { injectionSystemPrompt, injectionTaskPayload } from './prompts.js';
import { parseInjectReport } from './report.js';
import type { InjectionTask } from './types.js';

async function exampleSpec(): Promise<BugTypeSpec> {
  const file = path.join(bugTypesDir(), 'api_identical_value_comparison.yaml');
  return parseBugTypeSpec(await readFile(file, 'utf8'), file);
}

function taskFor(spec: BugTypeSpec): InjectionTask {
  return {
    spec,
    projectLabel: 'commons-csv@1.9.0',
    workspace: '/tmp/ws',
    witness: {
      testClass: 'org.apache.commons.csv.CSVFormatTest',
      testFile: 'src/test/java/org/apache/commons/csv/CSVFormatTest.java',
    },
    context: {
      size: 57,
      bucket: 'mid-short',
      anchors: [
        { method: 'equals', file: 'src/main/java/org/apache/commons/csv/CSVFormat.java' },
        { method: 'validate', file: 'src/main/java/org/apache/commons/csv/CSVFormat.java' },
      ],
    },
    replayCommand: "mvn -q -o -Dtest='CSVFormatTest' test",
    runId: 'inject__20260101T000000Z',
  };
}

describe('injectionSystemPrompt', () => {
  it('has the paper sections: mission, rules, budget, and the report line', () => {
    const prompt = injectionSystemPrompt();
    for (const section of [
      'MISSION:',
      'NON-NEGOTIABLE RULES:',
      'CONSTRUCTION-SIDE EXECUTION BUDGET:',
      'Up to 3 total runs of the provided reproduction command',
      'verbatim',
      'INJECT_REPORT_JSON:',
    ]) {
      expect(prompt).toContain(section);
    }
    expect(prompt).toMatch(/Never edit the target test/);
  });
});

describe('injectionTaskPayload', () => {
  it('quotes the type spec, the trace summary, the anchors and the replay command', async () => {
    const spec = await exampleSpec();
    const task = taskFor(spec);
    const payload = injectionTaskPayload(task, { number: 1, of: 3 });
    expect(payload).toContain(`- id: ${spec.id}`);
    expect(payload).toContain(`- name: ${spec.name}`);
    expect(payload).toContain(`- category: ${spec.category}`);
    expect(payload).toContain(`- scope: ${spec.scope}`);
    expect(payload).toContain('- language: java');
    expect(payload).toContain(spec.description);
    for (const element of [
      ...spec.structureConstraints.requiredElements,
      ...spec.structureConstraints.forbiddenElements,
    ]) {
      expect(payload).toContain(`- ${element}`);
    }
    expect(payload).toContain(`- exception_type_hint: ${spec.runtimeEffect.exceptionType}`);
    expect(payload).toContain(
      `- typical_failure_signal: ${spec.runtimeEffect.typicalFailureSignal}`,
    );
    expect(payload).toContain(`- test_shape_hint: ${spec.triggerConditions.testShape}`);
    expect(payload).toContain(`- input_properties_hint: ${spec.triggerConditions.inputProperties}`);
    expect(payload).toContain('"methods_count": 57');
    expect(payload).toMatch(
      /CANDIDATE ANCHORS:\n- method: CSVFormatTest\n {2}file: src\/test\/java\/org\/apache\/commons\/csv\/CSVFormatTest\.java\n {2}role: target test/,
    );
    expect(payload).toContain(
      '- method: validate\n  file: src/main/java/org/apache/commons/csv/CSVFormat.java',
    );
    expect(payload).toContain(`replay_command: ${task.replayCommand}\n`);
    expect(payload).toContain(`type_id: ${spec.id}\n`);
    expect(payload).toContain(
      'Do not edit src/test/java/org/apache/commons/csv/CSVFormatTest.java',
    );
    expect(payload).toContain('Keep every public and protected signature unchanged.');
    expect(payload).toContain(
      '- operational evidence: ok, git_changed_files, repro_cmd, repro_exit_code',
    );
    expect(payload).toContain('- type-site rationale: type_id, target_files, target_symbols');
    expect(payload).not.toContain('PREVIOUS ATTEMPT FEEDBACK');
  });

  it('shows a report template the parser accepts for this task', async () => {
    const task = taskFor(await exampleSpec());
    const payload = injectionTaskPayload(task, { number: 1, of: 3 });
    const templateLine = payload.split('\n').at(-1)!;
    const parsed = parseInjectReport(templateLine, {
      replayCommand: task.replayCommand,
      typeId: task.spec.id,
    });
    expect(parsed).toMatchObject({ status: 'ok', mismatches: [] });
  });

  it('carries the previous attempt feedback from the second attempt on', async () => {
    const payload = injectionTaskPayload(taskFor(await exampleSpec()), {
      number: 2,
      of: 3,
      previous: { attempt: 1, feedback: 'Harness verdict: the witness still passes' },
    });
    expect(payload).toContain('attempt: 2 of 3');
    expect(payload).toMatch(
      /PREVIOUS ATTEMPT FEEDBACK \(attempt 1 was rejected; the repository has been reset[^\n]*\nHarness verdict: the witness still passes/,
    );
  });

  it('lets a signature-changing type change the signature it needs', async () => {
    const spec = { ...(await exampleSpec()), changesSignature: true };
    const payload = injectionTaskPayload(taskFor(spec), { number: 1, of: 3 });
    expect(payload).toContain('This bug type changes a method signature by its nature');
  });
});
