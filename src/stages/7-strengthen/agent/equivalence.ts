import { z } from 'zod';
import type { AgentTaskResult, AttemptJudgement } from '../../../agents/engine.js';
import type { ReportFormat } from '../../../agents/report.js';
import type { RepairSubject } from '../../../repair/project.js';
import { patchOf } from '../../../project/state.js';
import type { GoldFile } from '../mutants.js';

/*
 * SWE-ABS's equivalence judge (§3.3: three votes), for the survivors no probe told from gold: an
 * agent reads the fix and the variant and says whether some input tells them apart. Its votes are
 * recorded beside the mutant and decide nothing that evidence decides: a mutant with evidence is
 * non-equivalent whatever an agent says, and one without stays unproven, never a blind spot.
 */

export const EQUIVALENCE_PROMPT_VERSION = 1;
/** Votes per mutant, as in the paper. */
export const VOTES = 3;

const EquivalenceReportSchema = z.strictObject({
  equivalent: z.boolean(),
  /** A call that tells the two apart, when the agent says there is one. */
  input: z.string().optional(),
  reason: z.string(),
});
export type EquivalenceReport = z.infer<typeof EquivalenceReportSchema>;

export const EQUIVALENCE_REPORT_PREFIX = 'EQUIVALENCE_JSON:';

export const equivalenceReportFormat: ReportFormat<EquivalenceReport> = {
  prefix: EQUIVALENCE_REPORT_PREFIX,
  schema: EquivalenceReportSchema,
  mismatches: () => [],
};

/** What the judge said of one mutant: votes each way, runs without a sound answer, and why. */
export interface EquivalenceVotes {
  equivalent: number;
  different: number;
  unanswered: number;
  /** The reasons (and a telling input, where given) of the answered votes, in order. */
  reasons: string[];
}

/** The judge reads; whatever it leaves in the workspace is ignored. */
export const readOnlyJudgement: AttemptJudgement = {
  kind: 'Accepted',
  summary: 'an answer is all that is asked',
};

export function equivalenceSystemPrompt(): string {
  return `You are reviewing a variant of a bug fix in a Java repository (the fix is applied in the working tree).
Decide whether the variant behaves exactly like the fix for every input the code can receive (equivalent), or whether some call observes a difference: a return value, an exception, a changed state.
You cannot run the build here; read the code. Do not edit files.
End your final message with one line: ${EQUIVALENCE_REPORT_PREFIX} {"equivalent": true or false, "input": "<a call that tells them apart, or empty>", "reason": "<one sentence>"}`;
}

export function equivalencePrompt(
  subject: RepairSubject,
  file: GoldFile,
  mutantSource: string,
): string {
  const variant = patchOf([{ file: file.file, before: file.gold, after: mutantSource }]).diff;
  return `Issue:
${subject.instance.problem_statement.trim()}

Fix (applied):
${subject.instance.patch.trim()}

Variant, as a change to the fixed ${file.file}:
${variant.trim()}

Is the variant equivalent to the fix?`;
}

/** The votes of a judge's runs: one vote per run whose report parsed. */
export function countedVotes(
  runs: readonly AgentTaskResult<EquivalenceReport>[],
): EquivalenceVotes {
  const votes: EquivalenceVotes = { equivalent: 0, different: 0, unanswered: 0, reasons: [] };
  for (const run of runs) {
    const report = run.attempts.at(-1)?.report;
    if (report?.kind !== 'Parsed') {
      votes.unanswered++;
      continue;
    }
    const { equivalent, input, reason } = report.report;
    if (equivalent) votes.equivalent++;
    else votes.different++;
    votes.reasons.push(input ? `${reason} (${input})` : reason);
  }
  return votes;
}
