import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  runAgentTask,
  type AgentTaskResult,
  type AttemptJudgement,
  type AttemptPosition,
} from '../../../agents/engine.js';
import type { AgentAdapter } from '../../../agents/types.js';
import { describeFinding, workspaceChanges } from '../../../agents/workspace-changes.js';
import type { CacheLayout } from '../../../core/cache.js';
import { ensureJacoco } from '../../../coverage/jacoco.js';
import { copyProjectTree, makeTempDir, removeTree } from '../../../core/fs.js';
import { instanceTestClasses } from '../../../repair/instance.js';
import { materialiseTree, withTests, type RepairSubject } from '../../../repair/project.js';
import { patchedTree, preparedInstanceTree } from '../../../repair/verify-patch.js';
import { buildlessSandbox } from '../../../agents/sandboxed.js';
import type { NetworkPolicy } from '../../../sandbox/bwrap.js';
import { isolatedJavaSetup, type PreparedTree } from '../../../sandbox/java-runs.js';
import { freshWorkspace } from '../../5-evaluate/workspace.js';
import { loadJavaGrammar } from '../../../lang/java/syntax.js';
import { methodsOf } from '../amplify/assertions.js';
import type { GoldAlternative } from '../alternatives.js';
import { packagePattern, sourceRootRelative, type SliceCoverage } from '../coverage.js';
import type { AmplifiedClass, StageOneLoss } from '../stage-one.js';
import { gateAgentTests, type AgentTestClass, type GatedTests, type GateTrees } from './gates.js';
import {
  coveragePrompt,
  decouplingPrompt,
  generationPrompt,
  strengthenReportFormat,
  strengthenSystemPrompt,
  type MissedLine,
  type StrengthenPromptInput,
} from './prompts.js';

/*
 * Stage I's agent engine (SWE-ABS §3.2 with its prompts, A.1.1–A.1.3): an agent in the sandbox,
 * given the gold tree with the instance's tests, writes new `…StrengthenedTest` classes; the
 * harness gates them (agent/gates.ts, all in the sandbox) and feeds back what it saw, up to
 * `attempts` times. Where relevant lines stay missed, the agent revises its tests with the missed
 * lines (coverage feedback); then it decouples their assertions from gold, and the revision is
 * kept only if it passes the same gates and covers no less.
 */

export type AgentPhase = 'generation' | 'coverage' | 'decoupling';
/** An agent run kept for the record: a phase of Stage I, or Stage II's n-th mutant. */
export type AgentRunName = AgentPhase | `mutant-${number}` | `judge-${string}-${number}`;

export interface AgentEngineSetup {
  cache: CacheLayout;
  adapter: AgentAdapter;
  attempts: number;
  /** Per agent run. */
  timeoutMs: number;
  network: NetworkPolicy;
  readOnly: string[];
  writable: string[];
  /** Keeps each phase's agent run (prompts, transcripts, verdicts), whatever came of it. */
  saveRun: (run: AgentRunName, result: AgentTaskResult<unknown>) => Promise<void>;
  log: (line: string) => void;
}

export type AgentStageOneOutcome =
  | { kind: 'NothingMissed' }
  | {
      kind: 'Amplified';
      classes: AmplifiedClass[];
      /** Agent attempts made, all phases. */
      attempts: number;
      losses: StageOneLoss[];
      failToPass: string[];
      passToPass: string[];
      /** Missed relevant lines the kept classes cover, as `file:line`. */
      covered: string[];
    };

interface Accepted {
  phase: AgentPhase;
  attempt: number;
  gated: GatedTests;
}

/** The relevant lines still missed after `covered`, with their code in the gold tree. */
async function missedLinesOf(
  before: Extract<SliceCoverage, { kind: 'Measured' }>,
  covered: ReadonlySet<string>,
  goldRoot: string,
): Promise<MissedLine[]> {
  const lines: MissedLine[] = [];
  for (const file of before.files) {
    if (file.missed.length === 0) continue;
    const text = (await readFile(path.join(goldRoot, file.file), 'utf8')).split('\n');
    for (const line of file.missed) {
      if (!covered.has(`${file.file}:${line}`)) {
        lines.push({ file: file.file, line, code: text[line - 1] ?? '' });
      }
    }
  }
  return lines;
}

function binaryName(file: string, testSources: string): string {
  return file
    .slice(testSources.length + 1)
    .replace(/\.java$/, '')
    .replace(/\//g, '.');
}

/** The harness's words about a gated attempt: what was lost, and why, for the next prompt. */
function gateFeedback(gated: GatedTests, stripped: readonly string[]): string {
  const lines = [
    ...stripped.map((file) => `- ${file}: discarded (only new …StrengthenedTest files are read)`),
    ...gated.losses.map(
      (loss) => `- ${loss.gate}: ${loss.tests.join(', ')}: ${loss.detail.slice(0, 400)}`,
    ),
  ];
  return lines.length === 0 ? 'No test was kept.' : lines.join('\n');
}

/** The files an attempt wrote: new strengthened test classes, and the rest (stripped). */
async function writtenClasses(
  given: string,
  workspace: string,
  testSources: string,
): Promise<{ classes: AgentTestClass[]; stripped: string[] } | { unreadable: string }> {
  const changes = await workspaceChanges(given, workspace, ['.git']);
  const unread = changes.find((change) => change.finding !== undefined);
  if (unread?.finding) return { unreadable: `${unread.file}: ${describeFinding(unread.finding)}` };
  const classes: AgentTestClass[] = [];
  const stripped: string[] = [];
  for (const change of changes) {
    const isNewTest =
      change.before === '' &&
      change.after !== '' &&
      change.file.startsWith(`${testSources}/`) &&
      change.file.endsWith('StrengthenedTest.java');
    const methods = isNewTest ? methodsOf(change.after) : [];
    if (methods.length === 0) {
      stripped.push(change.file);
      continue;
    }
    classes.push({
      testClass: binaryName(change.file, testSources),
      file: change.file,
      source: change.after,
      methods,
    });
  }
  return { classes: classes.sort((a, b) => (a.file < b.file ? -1 : 1)), stripped };
}

export async function agentStageOne(
  subject: RepairSubject,
  before: Extract<SliceCoverage, { kind: 'Measured' }>,
  guard: readonly GoldAlternative[],
  setup: AgentEngineSetup,
): Promise<AgentStageOneOutcome> {
  if (before.files.every((file) => file.missed.length === 0)) return { kind: 'NothingMissed' };
  const { project, instance } = subject;
  const { layout } = project;
  await loadJavaGrammar();
  const java = await isolatedJavaSetup();
  const gold = await preparedInstanceTree(subject, 'gold', setup.cache);
  const base = await preparedInstanceTree(subject, 'base', setup.cache);
  const guardTrees: { id: string; tree: PreparedTree }[] = [];
  const losses: StageOneLoss[] = [];
  const dir = await makeTempDir('strengthen-agent');
  try {
    for (const alternative of guard) {
      const patched = await patchedTree(alternative.patch, base, layout, java);
      if (patched.kind === 'Patched') guardTrees.push({ id: alternative.id, tree: patched.tree });
    }
    const trees: GateTrees = { gold, base, guard: guardTrees };
    const jacoco = await ensureJacoco(setup.cache);
    const missedByFile = new Map(
      before.files
        .filter((file) => file.missed.length > 0)
        .map((file) => [file.file, new Set(file.missed)]),
    );
    const includes = [
      ...new Set(
        [...missedByFile.keys()].map((file) =>
          packagePattern(sourceRootRelative(layout.mainSources, file)),
        ),
      ),
    ];
    const gateSetup = {
      java,
      jacoco,
      includes,
      missed: missedByFile,
      mainSources: layout.mainSources,
    };

    const given = path.join(dir, 'given');
    const workspace = path.join(dir, 'workspace');
    await materialiseTree(withTests(subject, subject.gold), project, given);
    const testFiles = [
      ...new Set(
        [...instanceTestClasses(instance).keys()].map((name) =>
          path.posix.join(layout.testSources, `${name.split('$')[0]!.replace(/\./g, '/')}.java`),
        ),
      ),
    ].sort();
    const promptInput = async (covered: ReadonlySet<string>): Promise<StrengthenPromptInput> => ({
      problemStatement: instance.problem_statement,
      goldPatch: instance.patch,
      testFiles,
      testSources: layout.testSources,
      missed: await missedLinesOf(before, covered, given),
    });

    let accepted: Accepted | undefined;
    let attempts = 0;
    // Each attempt's reset makes the workspace afresh at this path; the sandbox binds the path.
    await mkdir(workspace, { recursive: true });
    const box = await buildlessSandbox(workspace, setup);
    try {
      /** One phase: the agent's attempts from the accepted tests so far, judged by the gates. */
      const phase = async (
        name: AgentPhase,
        attemptCount: number,
        prompt: (attempt: AttemptPosition) => string,
        good: (gated: GatedTests) => string | null,
      ): Promise<void> => {
        const start = path.join(dir, `start-${name}`);
        await removeTree(start);
        await copyProjectTree(given, start);
        for (const entry of accepted?.gated.kept ?? []) {
          await mkdir(path.dirname(path.join(start, entry.file)), { recursive: true });
          await writeFile(path.join(start, entry.file), entry.source);
        }
        const results = new Map<number, GatedTests>();
        const result = await runAgentTask({
          task: {
            runId: `${instance.instance_id}-${name}`,
            workspace,
            replayCommand: '',
            systemPrompt: strengthenSystemPrompt(layout.testSources),
            userPrompt: prompt,
            report: strengthenReportFormat,
            acceptedWithUnsoundReport:
              'The tests passed the gates, but they do not count without a sound final report line.',
          },
          adapter: setup.adapter,
          attempts: attemptCount,
          reset: () => freshWorkspace(start, workspace),
          judge: async (attempt): Promise<AttemptJudgement> => {
            attempts++;
            const written = await writtenClasses(given, workspace, layout.testSources);
            if ('unreadable' in written) {
              return {
                kind: 'Rejected',
                reason: 'unreadable workspace',
                feedback: written.unreadable,
              };
            }
            if (written.classes.length === 0) {
              const feedback = gateFeedback(
                { kept: [], losses: [], covered: new Set(), failToPass: [], passToPass: [] },
                written.stripped,
              );
              losses.push({
                gate: 'not-a-new-test-class',
                tests: written.stripped,
                detail: `${name}, attempt ${attempt.attempt}: no new …StrengthenedTest class with test methods`,
              });
              return { kind: 'Rejected', reason: 'no new strengthened test class', feedback };
            }
            if (written.stripped.length > 0) {
              losses.push({
                gate: 'not-a-new-test-class',
                tests: written.stripped,
                detail: `${name}, attempt ${attempt.attempt}: discarded`,
              });
            }
            const gated = await gateAgentTests(written.classes, trees, gateSetup);
            results.set(attempt.attempt, gated);
            const problem = good(gated);
            if (problem === null) {
              return {
                kind: 'Accepted',
                summary: `${gated.kept.length} class(es), ${gated.covered.size} missed line(s) covered`,
              };
            }
            losses.push(...gated.losses);
            const missed = await missedLinesOf(before, gated.covered, given);
            return {
              kind: 'Rejected',
              reason: problem,
              feedback: `${problem}\n${gateFeedback(gated, written.stripped)}\nRelevant lines still missed:\n${missed.map((line) => `${line.file}:${line.line}: ${line.code.trim()}`).join('\n')}`,
            };
          },
          timeoutMs: setup.timeoutMs,
          log: setup.log,
          sandbox: box,
        });
        await setup.saveRun(name, result);
        if (result.acceptedAttempt !== null) {
          const gated = results.get(result.acceptedAttempt)!;
          losses.push(...gated.losses);
          accepted = { phase: name, attempt: result.acceptedAttempt, gated };
        }
      };

      const files = () => (accepted?.gated.kept ?? []).map((entry) => entry.file);
      const input = await promptInput(new Set());
      await phase(
        'generation',
        setup.attempts,
        (attempt) => generationPrompt(input, attempt),
        (gated) => (gated.kept.length > 0 ? null : 'no test passed every gate'),
      );
      if (accepted) {
        const coveredBefore = accepted.gated.covered.size;
        const remaining = await promptInput(accepted.gated.covered);
        if (remaining.missed.length > 0) {
          await phase(
            'coverage',
            setup.attempts,
            (attempt) => coveragePrompt(remaining, files(), attempt),
            (gated) =>
              gated.covered.size > coveredBefore
                ? null
                : `the tests cover ${gated.covered.size} missed line(s), no more than the ${coveredBefore} before`,
          );
        }
        const keptBefore = accepted.gated;
        await phase(
          'decoupling',
          1,
          (attempt) => decouplingPrompt(files(), attempt),
          (gated) =>
            gated.covered.size >= keptBefore.covered.size &&
            gated.kept.reduce((sum, entry) => sum + entry.methods.length, 0) ===
              keptBefore.kept.reduce((sum, entry) => sum + entry.methods.length, 0)
              ? null
              : 'the revised tests lost a test method or covered line that passed before',
        );
      }
    } finally {
      await box.dispose();
    }
    const kept = accepted?.gated;
    return {
      kind: 'Amplified',
      classes: (kept?.kept ?? []).map((entry) => ({
        testClass: entry.testClass,
        file: entry.file,
        source: entry.source,
        methods: entry.methods,
        provenance: entry.methods.map((method) => ({
          method,
          from: 'agent',
          operator: `agent:${accepted!.phase}`,
          detail: `${setup.adapter.spec.name}, attempt ${accepted!.attempt}`,
        })),
      })),
      attempts,
      losses,
      failToPass: kept?.failToPass ?? [],
      passToPass: kept?.passToPass ?? [],
      covered: [...(kept?.covered ?? [])].sort(),
    };
  } finally {
    for (const entry of guardTrees) await removeTree(path.dirname(entry.tree.productionJar));
    await removeTree(dir);
  }
}
