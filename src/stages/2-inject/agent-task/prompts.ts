import type { AttemptPosition } from '../../../agents/engine.js';
import { capMiddle, REPLAY_BUDGET } from '../../../agents/types.js';
import { INJECT_REPORT_PREFIX } from './report.js';
import type { InjectionTask } from './task.js';

/**
 * The version of the injection prompts, hashed into task ids so results of other prompts are not
 * taken for these. Bump it on any change to the prompt texts, the values they quote included.
 */
export const PROMPT_VERSION = 1;

export const OPERATIONAL_FIELDS = [
  'ok',
  'git_changed_files',
  'repro_cmd',
  'repro_exit_code',
  'observed_exception',
  'call_chain',
  'notes',
] as const;

export const RATIONALE_FIELDS = [
  'type_id',
  'target_files',
  'target_symbols',
  'selected_anchor',
  'why_this_site',
  'expected_trigger_path',
  'stealth_rationale',
  'bug_mechanism',
  'preserved_prior_structure',
  'possible_risks',
] as const;

/**
 * The reusable system prompt (paper, Appendix I.1/I.6): mission, non-negotiable rules, execution
 * budget. The workspace is a plain copy of the project, not always a Git checkout, so "diff" means
 * the change against the sources as handed over.
 */
export function injectionSystemPrompt(): string {
  return `You are operating inside a copy of a software repository in an automated bug-injection pipeline.

MISSION:
Introduce a real, localized bug into production code so that the externally provided reproduction command fails for the intended bug type. Your work is only valid if the repository ends the session with a non-empty semantic diff against the sources you were given and the provided reproduction command, run verbatim, fails because of the injected bug.

NON-NEGOTIABLE RULES:
- You must produce a non-empty semantic diff in the current repository state before finalizing.
- Semantic diff means a real logic-changing edit, not whitespace-only, formatting-only, comment-only, import-only, rename-only, or mechanically trivial changes.
- Edit production code only (files under src/main of the module). Never edit the target test named in the task, any other test code, build files (pom.xml, mvnw, Gradle files) or resources used only by tests.
- You must run the reproduction command exactly as provided in the task, verbatim, from the repository root.
- Do not invent, replace, shorten, simplify, or substitute any command, module, flag, path, or test target.
- Do not change public or protected API signatures unless the bug type itself requires it.
- Do not announce the bug: no comments, names or log messages that point at the change; no constant conditions such as if (false).
- Do not claim success based on a hypothetical edit.
- Do not output a final success JSON if your diff is empty.
- Do not output a final success JSON if the reproduction command in your JSON differs from the externally provided command.

CONSTRUCTION-SIDE EXECUTION BUDGET:
- Up to ${REPLAY_BUDGET} total runs of the provided reproduction command in the same injection session.
- If the reproduction command passes (exit code 0), make another production-code edit and rerun the same command verbatim within this budget.

SUCCESS CRITERIA:
- The reproduction command exits with a non-zero code because the witness test now fails on your bug (an assertion failure or the runtime exception the bug type describes), not because of a compilation error or an infrastructure problem.
- The harness re-validates your final workspace independently; your own report never decides acceptance.

FINAL OUTPUT:
- End your final message with exactly one line starting with ${INJECT_REPORT_PREFIX} followed by a single-line JSON object, as specified in the task.`;
}

/** Characters of feedback quoted; harness output can be long and prompts travel over pipes. */
const FEEDBACK_LIMIT = 8000;

function bullets(items: readonly string[]): string {
  return items.map((item) => `- ${item}`).join('\n');
}

/** The task payload (paper, Appendix I.2/I.6) for one attempt. */
export function injectionTaskPayload(task: InjectionTask, attempt: AttemptPosition): string {
  const { spec } = task;
  const signatureRule = spec.changesSignature
    ? 'This bug type changes a method signature by its nature; keep every other public or protected signature unchanged.'
    : 'Keep every public and protected signature unchanged.';
  const anchors = [
    `- method: ${task.witness.testClass.split('.').pop() ?? task.witness.testClass}\n  file: ${task.witness.testFile}\n  role: target test (read it; never edit it)`,
    ...task.context.anchors.map(
      (anchor) =>
        `- method: ${anchor.method}\n  file: ${anchor.file}\n  role: production method reached by the target test`,
    ),
  ].join('\n');
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
  const feedback = attempt.previous
    ? `

PREVIOUS ATTEMPT FEEDBACK (attempt ${attempt.previous.attempt} was rejected; the repository has been reset to the original sources, so none of its edits remain):
${capMiddle(attempt.previous.feedback, FEEDBACK_LIMIT)}`
    : '';
  const template = JSON.stringify({
    ok: true,
    git_changed_files: ['<path>'],
    repro_cmd: task.replayCommand,
    repro_exit_code: 1,
    observed_exception: '<exception or assertion seen, or null>',
    call_chain: ['<test method>', '<production method>', '...'],
    notes: '<text>',
    type_id: spec.id,
    target_files: ['<path>'],
    target_symbols: ['<method>'],
    selected_anchor: '<method>',
    why_this_site: '<text>',
    expected_trigger_path: '<text>',
    stealth_rationale: '<text>',
    bug_mechanism: '<text>',
    preserved_prior_structure: '<text>',
    possible_risks: '<text>',
  });

  return `run_id: ${task.runId}
repository: ${task.projectLabel}
trace_group: ${task.context.bucket}
trace_id: ${task.witness.testClass}
bug_type: ${spec.name}
type_id: ${spec.id}
official_test_path: ${task.witness.testFile}
official_test_class: ${task.witness.testClass}
replay_command: ${task.replayCommand}
attempt: ${attempt.number} of ${attempt.of}

TASK PAYLOAD:
You are performing controlled BUG INJECTION into production code for research benchmarking.
Goal: introduce a subtle, realistic bug consistent with the specified bug type, while keeping changes localized and review-plausible.

TYPE:
- id: ${spec.id}
- name: ${spec.name}
- category: ${spec.category}
- scope: ${spec.scope}
- language: ${spec.language}

Description:
${spec.description}

Required elements:
${bullets(spec.structureConstraints.requiredElements)}

Forbidden elements:
${bullets(spec.structureConstraints.forbiddenElements)}

Runtime effect hints:
- exception_type_hint: ${spec.runtimeEffect.exceptionType}
- typical_failure_signal: ${spec.runtimeEffect.typicalFailureSignal}

Trigger condition hints:
- test_shape_hint: ${spec.triggerConditions.testShape}
- input_properties_hint: ${spec.triggerConditions.inputProperties}

TRACE CONTEXT SUMMARY:
${summary}

CANDIDATE ANCHORS:
${anchors}

FILE SCOPE:
- Edit production sources only (under src/main), preferably in the files of the candidate anchors above.
- Do not edit ${task.witness.testFile} or any other test, build or resource file.
- ${signatureRule}

REPLAY COMMAND (run it verbatim from the repository root; a non-zero exit code means the target test fails):
${task.replayCommand}

DELIVERABLE:
1. Implement the bug strictly according to the bug type contract.
2. Keep the patch minimal and consistent with repository style.
3. Run the provided reproduction command verbatim (at most ${REPLAY_BUDGET} runs).
4. Provide evidence in the final JSON.${feedback}

REQUIRED FINAL OUTPUT:
Append exactly one final line with this prefix, the JSON on the same line:
${INJECT_REPORT_PREFIX} { ... }
Required field groups:
- operational evidence: ${OPERATIONAL_FIELDS.join(', ')}
- type-site rationale: ${RATIONALE_FIELDS.join(', ')}
Types: ok is a boolean; git_changed_files, target_files, target_symbols and call_chain are lists of strings; repro_exit_code is the integer exit code of your last run of the command (null if you could not run it); observed_exception is a string or null; repro_cmd must equal the replay command above character for character; type_id must be ${spec.id}; the other fields are strings.
Example shape:
${INJECT_REPORT_PREFIX} ${template}`;
}
