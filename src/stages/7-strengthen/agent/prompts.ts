import { z } from 'zod';
import type { AttemptPosition } from '../../../agents/engine.js';
import type { ReportFormat } from '../../../agents/report.js';

/*
 * Stage I's agent prompts, after SWE-ABS's Appendix A.1.1–A.1.3: initial generation into a new test
 * file, coverage-guided augmentation with the missed lines, and decoupling from gold's details.
 * The harness decides every keep and drop by the same gates as the deterministic engine; what the
 * agent reports is recorded, never trusted.
 */

export const STRENGTHEN_PROMPT_VERSION = 1;

/** A relevant line the suite misses, with its code, for the prompt. */
export interface MissedLine {
  file: string;
  line: number;
  code: string;
}

export interface StrengthenPromptInput {
  problemStatement: string;
  goldPatch: string;
  /** Project-relative test files of the instance's own tests (the original test patch's). */
  testFiles: readonly string[];
  testSources: string;
  missed: readonly MissedLine[];
}

const StrengthenReportSchema = z.strictObject({
  files: z.array(z.string()),
  summary: z.string(),
});
export type StrengthenReport = z.infer<typeof StrengthenReportSchema>;

export const STRENGTHEN_REPORT_PREFIX = 'STRENGTHEN_REPORT_JSON:';

export const strengthenReportFormat: ReportFormat<StrengthenReport> = {
  prefix: STRENGTHEN_REPORT_PREFIX,
  schema: StrengthenReportSchema,
  mismatches: (report) =>
    report.files
      .filter((file) => !file.endsWith('StrengthenedTest.java'))
      .map((file) => `${file} is not a new …StrengthenedTest.java file`),
};

export function strengthenSystemPrompt(testSources: string): string {
  return `You are an autonomous test engineer operating inside a Java repository whose bug has already been fixed.
Your job is to strengthen its tests so that they check the fixed behaviour, not the fix's wording.

HARD CONSTRAINTS:
1. Only create new test classes under ${testSources}, in the package of the code they test, each named <Something>StrengthenedTest; never edit an existing file: such edits are discarded.
2. Use the test framework and style of the existing tests beside them.
3. Tests must pass with the fixed code in the repository and must not depend on details of the fix that another correct fix could do differently: no exact exception messages, no formatting or ordering the code does not promise, no identity hashes, dates, locale or time-zone dependent text.
4. Call only methods that already existed before the fix or that the existing tests call.
5. You cannot run the project's build here; read the code carefully instead.
6. End your final message with one line: ${STRENGTHEN_REPORT_PREFIX} {"files": [<the test files you wrote, repository-relative>], "summary": "<one sentence>"}`;
}

function missedText(missed: readonly MissedLine[]): string {
  return missed.length === 0
    ? '(none)'
    : missed.map((line) => `${line.file}:${line.line}: ${line.code.trim()}`).join('\n');
}

function feedbackText(attempt: AttemptPosition): string {
  return attempt.previous
    ? `\n\nYour previous attempt (${attempt.previous.attempt}) was not kept:\n${attempt.previous.feedback}`
    : '';
}

/** A.1.1: understand the issue, read the fix and the tests, write general edge and stress cases. */
export function generationPrompt(input: StrengthenPromptInput, attempt: AttemptPosition): string {
  return `The issue below was fixed by the patch shown (already applied in the repository). The existing tests that check it are in:
${input.testFiles.join('\n')}

Expand these tests with general edge and stress cases of the intended behaviour, consolidated into one new test file (see the constraints). Use the fix and the existing tests as references, but verify what the issue asks for, not the exact output form of this fix.

These lines relevant to the fix are executed by no existing test; aim your tests at them:
${missedText(input.missed)}

Issue:
${input.problemStatement.trim()}

Fix:
${input.goldPatch.trim()}${feedbackText(attempt)}`;
}

/** A.1.3: coverage feedback; the tests written so far are revised, no new file created. */
export function coveragePrompt(
  input: StrengthenPromptInput,
  files: readonly string[],
  attempt: AttemptPosition,
): string {
  return `Your test file(s) ${files.join(', ')} still leave these lines relevant to the fix unexecuted:
${missedText(input.missed)}

Update the tests in those files so that they exercise these lines; do not create new test files, and keep every test passing with the fixed code.${feedbackText(attempt)}`;
}

/** A.1.2: decoupling; assertions generalised, methods neither added nor removed. */
export function decouplingPrompt(files: readonly string[], attempt: AttemptPosition): string {
  return `Review the assertions in ${files.join(', ')}. Remove dependencies on this particular fix's implementation: hard-coded error or exception messages, orderings the code does not promise, exact formatting, and anything else another correct fix could legitimately do differently. Keep the essential semantics (the exception type, the values that matter). Do not add or remove test methods, and do not edit other files.${feedbackText(attempt)}`;
}
