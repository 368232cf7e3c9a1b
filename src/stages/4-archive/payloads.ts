import type { ExecutionContext } from '../1-trace/trace.js';
import type { CaseRecord } from './case.js';

/**
 * The executable-validation prompts of a case (paper, Appendix I.4 system prompt and I.5 task
 * payload, as I.6 shows them): what an agent gets in the NoEC and WithEC settings. The witness
 * itself is never quoted; only its path and class, which the paper gives as the file to rewrite.
 */

/** Recorded in each case: bump it on any change to the texts below. */
export const VALIDATION_PROMPT_VERSION = 1;

export const TRIGGER_REPORT_PREFIX = 'TRIGGER_REPORT_JSON:';

export const CONTEXT_SETTINGS = ['NoEC', 'WithEC'] as const;
export type ContextSetting = (typeof CONTEXT_SETTINGS)[number];

/** Bug validation attempts a case allows (paper §4.1). */
export const VALIDATION_ATTEMPTS = 3;

/** What a payload quotes beyond the case record. */
export interface PayloadInput {
  case: CaseRecord;
  /** The bug type's description (its spec). */
  typeDescription: string;
  /** The witness's execution context; quoted in WithEC only. */
  context: ExecutionContext;
  /** Where test sources live, project-relative (`src/test/java`, or under the module). */
  testSources: string;
}

function bullets(items: readonly string[]): string {
  return items.map((item) => `- ${item}`).join('\n');
}

export function validationSystemPrompt(testSources: string): string {
  return `You are an autonomous code agent operating inside a Java repository.
You are running an executable bug-validation task for an already-injected production bug.
Your job is not to fix code.
Your job is not to improve the repository.
Your job is not to write a generally reasonable test.
Your only goal is to create a new Java test case that exposes the already-injected bug under the provided Maven verification command.

EVALUATION ATTEMPT BUDGET:
For each benchmark case, the evaluation protocol allows at most ${VALIDATION_ATTEMPTS} bug-validation attempts.
Each attempt must obey the same test-only constraints and use the provided replay command as the validation target.

HARD CONSTRAINTS:
1. Never modify production code under src/main/java or any non-test source root.
2. Never modify build files, pom.xml files, Gradle files, CI files, config files, or dependency files.
3. Only create or edit Java test files under ${testSources}.
4. Prefer rewriting the official testcase file at the same path and with the same package and class name when that information is provided.
5. The testcase must materialize in the repository as a real .java file before verification.
6. The testcase must be designed to trigger the injected bug, not to validate normal behavior.
7. Do not output file blocks for an external parser. Directly write files into the repository workspace.
8. Keep the testcase minimal but bug-targeted.
9. Do not delete or modify unrelated files.`;
}

function contextBlock(context: ExecutionContext): string {
  const methods = context.trace.map(
    (method) => `${method.className}.${method.signature}${method.file ? ` (${method.file})` : ''}`,
  );
  return `Execution context block:
The official test reaches ${context.size} distinct production methods (${context.bucket} execution context). In the order it first enters them:
${bullets(methods)}
This execution context block identifies the path used during benchmark construction; it does not include the reference-trigger implementation or hidden validation oracle.`;
}

function reportTemplate(record: CaseRecord): string {
  return JSON.stringify({
    summary: '…',
    suspected_bug_mechanism: '…',
    inspected_production_files: ['…'],
    inspected_test_files: ['…'],
    selected_test_path: record.officialTest.path,
    selected_test_class: record.officialTest.class,
    trigger_strategy: ['…', '…', '…'],
    expected_failure_signal: '…',
    materialized_test_files: ['…'],
    notes: '…',
  });
}

/** The task payload of a case in one setting; WithEC adds the execution context block. */
export function validationTaskPayload(input: PayloadInput, setting: ContextSetting): string {
  const record = input.case;
  const location = record.bugMembers.map(
    (member) => `${member.binaryClass}.${member.name} (${member.file})`,
  );
  const path =
    setting === 'WithEC'
      ? '- Exercise the buggy path the execution context shows, through the buggy location.'
      : '- Exercise the buggy location named above.';
  return `Generate a new Java testcase that triggers the already-injected bug.

Success criteria:
- A real Java testcase file exists in the repository under ${input.testSources}.
- The testcase uses the correct package declaration.
- The testcase compiles.
- The provided verification command fails because the injected bug is triggered.
- The failure is a semantic test failure, not a compile error and not a harness failure.
- No production file or build configuration file is modified.

Repository: ${record.project.name}
Context setting: ${setting}
Injected case run_id: ${record.id}
Type ID: ${record.bugType.id}
Bug type: ${record.bugType.name}
Applied transforms: ${record.transforms.ids.join(', ')}
Bug-related production files:
${bullets(record.bugRelatedFiles)}
Buggy location:
${bullets(location)}
Official test path: ${record.officialTest.path}
Official test class: ${record.officialTest.class}
Verification command: ${record.verifyCommand}
Injection-stage verify rc: 1

Type summary:
${input.typeDescription}
${setting === 'WithEC' ? `\n${contextBlock(input.context)}\n` : ''}
What you must do:
- Read the bug context carefully.
- Inspect the relevant production and test files.
- Rewrite or create the testcase directly at the official test path.
- Keep the package name and class name correct.
${path}
- Write an oracle that fails under the injected bug.
- Run the provided verification command if needed.
- Leave no production-code or build-configuration changes.

Required final output:
At the very end, print exactly one single-line JSON object prefixed by:
${TRIGGER_REPORT_PREFIX}
The JSON object must have this schema:
${reportTemplate(record)}`;
}

const SYSTEM_HEADING = 'SYSTEM:\n\n';
const PAYLOAD_HEADING = '\n\nTASK PAYLOAD:\n\n';

/** Where a case keeps its payload file of a setting, relative to the case directory. */
export function payloadFile(setting: ContextSetting): string {
  return `tasks/${setting}.md`;
}

/** A payload file as the archive writes it: the system prompt, then the task payload. */
export function payloadDocument(input: PayloadInput, setting: ContextSetting): string {
  return `${SYSTEM_HEADING}${validationSystemPrompt(input.testSources)}${PAYLOAD_HEADING}${validationTaskPayload(input, setting)}\n`;
}

/** The two prompts of a payload file, or undefined when the text is not one. */
export function readPayloadDocument(
  document: string,
): { system: string; payload: string } | undefined {
  const split = document.indexOf(PAYLOAD_HEADING);
  if (!document.startsWith(SYSTEM_HEADING) || split < 0) return undefined;
  return {
    system: document.slice(SYSTEM_HEADING.length, split),
    payload: document.slice(split + PAYLOAD_HEADING.length).trimEnd(),
  };
}
