import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bugTypesDir, parseBugTypeSpec, type BugTypeSpec } from '../spec.js';
import { parseReport } from '../../../agents/report.js';
import { sha256Text } from '../../../core/fs.js';
import { injectionSystemPrompt, injectionTaskPayload, PROMPT_VERSION } from './prompts.js';
import { injectReportFormat } from './report.js';
import type { InjectionTask } from './task.js';
import { DEMO_SPEC } from './test-support.js';

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
    const parsed = parseReport(
      templateLine,
      injectReportFormat({ replayCommand: task.replayCommand, typeId: task.spec.id }),
    );
    expect(parsed).toMatchObject({ kind: 'Parsed', mismatches: [] });
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

describe('PROMPT_VERSION', () => {
  // Written out, so edits to the bug-type files do not move the pin.
  const pinnedSpec = DEMO_SPEC;

  it('belongs to these prompt texts: change them, bump the version and re-pin the hash', () => {
    const texts = [
      injectionSystemPrompt(),
      injectionTaskPayload(taskFor(pinnedSpec), { number: 1, of: 3 }),
      injectionTaskPayload(taskFor({ ...pinnedSpec, changesSignature: true }), {
        number: 2,
        of: 3,
        previous: { attempt: 1, feedback: 'the witness still passes' },
      }),
    ];
    expect({ version: PROMPT_VERSION, sha256: sha256Text(texts.join('\0')) }).toEqual({
      version: 1,
      sha256: '1013d1f9b887947d5bbfe026416305e16cada349f7a350346bff7e531d385b8d',
    });
  });
});
