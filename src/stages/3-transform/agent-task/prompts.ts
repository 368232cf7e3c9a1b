import { REPLAY_BUDGET } from '../../../agents/types.js';
import { TRANSFORM_REPORT_FIELDS, TRANSFORM_REPORT_PREFIX } from './report.js';
import type { TransformTask } from './task.js';

/**
 * The version of the transformation prompts, hashed into agent-run ids so results of other
 * prompts are not taken for these. Bump it on any change to the prompt texts.
 */
export const TRANSFORM_PROMPT_VERSION = 1;

/**
 * The reusable system prompt of a transformation step (paper, Appendix I.3/I.6, with the
 * injection prompt's discipline): the bug stays, the structure around it changes the way a
 * maintainer's refactoring would.
 */
export function transformSystemPrompt(): string {
  return `You are operating inside a copy of a software repository in an automated benchmark-construction pipeline. A bug has already been injected into its production code on purpose, and a witness test exposes it.

MISSION:
Apply exactly one bug-preserving transformation to the production code around the injected bug, as the task's transform specification describes. The repository must still compile, and the provided reproduction command, run verbatim, must still fail because of the same bug: the same test methods (or fewer of them) failing the same way.

NON-NEGOTIABLE RULES:
- Do not fix, weaken or move away from the bug: the buggy behaviour must be reached and observed exactly as before for the witness.
- Keep the behaviour for every other input: other tests that passed must still pass.
- Edit production code only (files under src/main of the module). Never edit any test code, build files (pom.xml, mvnw, Gradle files) or resources.
- Do not change, add or remove public or protected signatures; new members are private.
- Read like a maintainer's refactoring: the project's own layout, indentation, brace style and naming; names that say what the code computes (never helper1, doX, xInternal).
- No comments that point at the bug or the transformation, no constant conditions such as if (false), no dead or unreachable code.
- Write Java the project's source level accepts (the task names it; at 8, no var, records, switch expressions or text blocks).
- You must run the reproduction command exactly as provided in the task, verbatim, from the repository root; do not substitute any command, flag, path or test target.
- Do not claim success based on a hypothetical edit.

CONSTRUCTION-SIDE EXECUTION BUDGET:
- Up to ${REPLAY_BUDGET} total runs of the provided reproduction command in this transformation session.
- There is one attempt per transformation step: the harness keeps or reverts what you leave, without a second try.

SUCCESS CRITERIA:
- The repository compiles, the transformation's post-conditions hold, and the reproduction command still exits with a non-zero code because the witness still exposes the injected bug.
- The harness re-validates your final workspace independently; your own report never decides acceptance.

FINAL OUTPUT:
- End your final message with exactly one line starting with ${TRANSFORM_REPORT_PREFIX} followed by a single-line JSON object, as specified in the task.`;
}

function bullets(items: readonly string[]): string {
  return items.map((item) => `- ${item}`).join('\n');
}

function indented(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

/** The task payload of one transformation step (paper, Appendix I.3/I.6). */
export function transformTaskPayload(task: TransformTask): string {
  const { spec, step } = task;
  const summary = JSON.stringify(
    {
      trace_id: task.witness.testClass,
      test_name: task.witness.testClass,
      methods_count: task.context.size,
      trace_bucket: task.context.bucket,
    },
    null,
    2,
  );
  const previous = step.sequence.slice(0, step.number - 1);
  const template = JSON.stringify({
    ok: true,
    transform_id: spec.id,
    changed_files: ['<path>'],
    edit_sites: ['<Class.method>'],
    what_was_added_or_wrapped: '<text>',
    what_was_preserved: '<text>',
    what_was_replaced_or_overwritten: '<text>',
    compatibility_with_previous_steps: '<text>',
    expected_effect_on_stealth: '<text>',
    expected_effect_on_trigger_depth: '<text>',
  });

  return `run_id: ${task.runId}
repository: ${task.projectLabel}
trace_group: ${task.context.bucket}
trace_id: ${task.witness.testClass}
bug_type: ${task.bugType.name}
type_id: ${task.bugType.id}
transform_depth: ${step.sequence.length}
transform_step: ${step.number} of ${step.sequence.length}
transform_id: ${spec.id}
transform_ids:
${bullets(step.sequence.map((entry) => entry.id))}
paper_facing_transform_terms:
${bullets(step.sequence.map((entry) => entry.operator))}
official_test_path: ${task.witness.testFile}
official_test_class: ${task.witness.testClass}
java_release: ${task.javaRelease ?? 'as the build sets it'}
replay_command: ${task.replayCommand}

TASK:
Apply one bug-preserving transformation step after successful bug injection.
The transformation must keep the repository compilable and preserve the replay behavior that exposes the injected bug.
${previous.length > 0 ? `Steps applied before this one, whose code you may wrap or split further: ${previous.map((entry) => entry.id).join(', ')}.` : 'This is the first transformation step.'}

TRANSFORM SPEC:
- id: ${spec.id}
- paper_facing_operator: ${spec.operator}
- family: ${spec.family}
- name: ${spec.name}
- description: ${spec.description.trim()}
- applicability: ${spec.applicability}
- forbidden_edits: ${spec.forbiddenEdits.join(', ')}
- must_preserve: ${spec.mustPreserve.join(', ')}
- post_conditions: ${spec.postConditions.join(', ')}

EXAMPLE OF THE OPERATOR (shape only, not this repository's code):
  before:
${indented(spec.example.before)}
  after:
${indented(spec.example.after)}

BUG LOCATION (the injected bug's lines as they read now; keep them reached and buggy):
- file: ${task.bug.file}
- lines:
${task.bug.lines.map((line) => `    ${line}`).join('\n')}

TRACE CONTEXT SUMMARY:
${summary}

CANDIDATE ANCHORS:
${task.context.anchors.map((anchor) => `- ${anchor.method}\n  file: ${anchor.file}`).join('\n')}

EDIT BOUNDARIES:
- Do not modify ${task.witness.testFile}, any other test, or any build or resource file.
- Do not change public or protected API signatures.
- Avoid broad refactors, renames, or formatting sweeps.
- Keep diffs localized to trace-relevant production code, preferably ${task.bug.file}.
- Preserve replay-command triggerability.

REPLAY COMMAND (run it verbatim from the repository root; a non-zero exit code means the witness still fails):
${task.replayCommand}

REQUIRED FINAL OUTPUT:
Append exactly one final line with this prefix, the JSON on the same line:
${TRANSFORM_REPORT_PREFIX} { ... }
Required keys:
${TRANSFORM_REPORT_FIELDS.join(', ')}
Types: ok is a boolean; changed_files and edit_sites are lists of strings; transform_id must be ${spec.id}; the other fields are strings.
Example shape:
${TRANSFORM_REPORT_PREFIX} ${template}`;
}
