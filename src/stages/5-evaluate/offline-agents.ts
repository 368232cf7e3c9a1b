import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { CacheLayout } from '../../core/cache.js';
import { UserError } from '../../core/errors.js';
import type { FetchedProjectRef } from '../../project/project.js';
import { mavenTestRunner } from '../../runners/maven.js';
import { testSourceFile } from '../../toolchains/layout.js';
import { mavenToolchain } from '../../toolchains/maven/maven.js';
import type { AgentAdapter, AgentRunResult } from '../../agents/types.js';
import type { NetworkPolicy } from '../../sandbox/bwrap.js';
import { readHiddenWitness } from '../4-archive/archive.js';
import type { CaseRecord } from '../4-archive/case.js';
import { TRIGGER_REPORT_PREFIX } from '../4-archive/payloads.js';

/*
 * Agents that need no model, so the whole loop runs offline and the oracle is calibrated:
 * `witness` submits the hidden construction-time witness (a positive control: it must succeed on
 * every case), `none` submits nothing (a negative control), `existing-tests` submits a test the
 * project already has that fails on the buggy tree (what the remaining suite gives away), and
 * `scripted` replays files from a script (for tests of the harness). They run in the harness, not
 * in the sandbox: they are the harness's own probes, and `witness` must read the hidden witness.
 */

export const OFFLINE_AGENTS = ['witness', 'none', 'existing-tests', 'scripted'] as const;
export type OfflineAgentName = (typeof OFFLINE_AGENTS)[number];

/** What an agent of the evaluation may know of its case, beyond its prompt and workspace. */
export interface CaseContext {
  bench: string;
  caseDir: string;
  record: CaseRecord;
  project: FetchedProjectRef;
  cache: CacheLayout;
}

/** How many attempts an item of an agent is given. */
export type AttemptLimit =
  /** As many as the run asks for (`--attempts`). */
  | { kind: 'AsAsked' }
  /** One: every further attempt would submit what the first did, and be judged the same. */
  | { kind: 'Once'; reason: string };

/** An agent as the evaluation uses it: one adapter per case, and whether it needs the sandbox. */
export interface EvaluationAgent {
  name: string;
  attempts: AttemptLimit;
  /** Process agents run in the sandbox; the offline agents are the harness's own. */
  sandboxed: boolean;
  /** What the sandboxed agent may reach (its model endpoint); the offline agents reach nothing. */
  network: NetworkPolicy;
  /** Host paths the sandboxed agent sees at their own path (its program, its configuration). */
  readOnly?: readonly string[];
  writable?: readonly string[];
  forAttempt(context: CaseContext, attempt: number): Promise<AgentAdapter>;
}

function finished(text: string, started: number, transcript = text): AgentRunResult {
  return {
    outcome: { kind: 'Exited', code: 0, signal: null },
    finalText: text,
    transcript,
    durationMs: Math.round(performance.now() - started),
  };
}

function report(record: CaseRecord, files: readonly string[], summary: string): string {
  return `${TRIGGER_REPORT_PREFIX} ${JSON.stringify({
    summary,
    suspected_bug_mechanism: record.bugType.name,
    inspected_production_files: record.bugRelatedFiles,
    inspected_test_files: files,
    selected_test_path: files[0] ?? '',
    selected_test_class: record.officialTest.class,
    trigger_strategy: [summary],
    expected_failure_signal: 'the test fails on the buggy tree',
    materialized_test_files: files,
    notes: 'offline agent',
  })}`;
}

async function writeInto(workspace: string, file: string, content: string): Promise<void> {
  const target = path.join(workspace, file);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, content);
}

function witnessAgent(): EvaluationAgent {
  return {
    name: 'witness',
    attempts: { kind: 'AsAsked' },
    sandboxed: false,
    network: { kind: 'none' },
    async forAttempt({ bench, record }) {
      const hidden = await readHiddenWitness(bench, record.id);
      if (hidden.kind === 'Corrupt') throw new Error(`case ${record.id}: ${hidden.reason}`);
      return {
        kind: 'agent',
        spec: { name: 'witness' },
        async run(input) {
          const started = performance.now();
          await writeInto(input.workspace, hidden.witness.path, hidden.text);
          return finished(
            report(record, [hidden.witness.path], 'the hidden witness'),
            started,
            `wrote ${hidden.witness.path}`,
          );
        },
      };
    },
  };
}

function noneAgent(): EvaluationAgent {
  return {
    name: 'none',
    attempts: { kind: 'AsAsked' },
    sandboxed: false,
    network: { kind: 'none' },
    forAttempt: async () => ({
      kind: 'agent',
      spec: { name: 'none' },
      run: async () => finished('', performance.now(), 'wrote nothing'),
    }),
  };
}

/**
 * Runs the project's suite on the buggy tree (the witness is not in the workspace) and submits
 * the first class that fails there and passed in the project's baseline; the file is resubmitted
 * with one comment line added, the smallest edit that makes it the submission.
 */
function existingTestsAgent(): EvaluationAgent {
  return {
    name: 'existing-tests',
    // It neither reads the prompt nor the feedback: the suite on the buggy tree decides alone.
    attempts: {
      kind: 'Once',
      reason:
        'existing-tests submits the same files on every attempt (the first existing test that fails on the buggy tree), whatever the feedback',
    },
    sandboxed: false,
    network: { kind: 'none' },
    async forAttempt({ project, cache, record }) {
      const passedOnClean = new Set(
        project.baseline.classes
          .filter((entry) => entry.status === 'Passed')
          .map((entry) => entry.testClass),
      );
      const toolchain = mavenToolchain;
      const hiddenTests = new Set([
        record.officialTest.class,
        ...record.coWitnesses.map((entry) => entry.class),
      ]);
      return {
        kind: 'agent',
        spec: { name: 'existing-tests' },
        async run(input) {
          const started = performance.now();
          const runner = mavenTestRunner(toolchain, cache);
          try {
            const target = { projectDir: input.workspace, build: project.build, changed: [] };
            const compiled = await runner.compile(target, input.timeoutMs);
            if (compiled.kind !== 'Compiled') {
              return finished('', started, 'the buggy tree does not compile');
            }
            const suiteMs = project.baseline.suite.durationMs;
            const run = await toolchain.runTests(
              compiled.workDir,
              project.build,
              { repository: cache.mavenRepo, offline: true },
              { timeoutMs: Math.min(input.timeoutMs, 120_000 + 3 * suiteMs) },
            );
            const failing = [
              ...new Set(
                run.reports
                  .filter((suite) => suite.counts.failures + suite.counts.errors > 0)
                  .map((suite) => suite.testClass.split('$')[0]!),
              ),
            ]
              // The hidden tests are not the suite's to give away: they are not in the workspace.
              .filter((testClass) => !hiddenTests.has(testClass))
              .filter((testClass) => passedOnClean.has(testClass))
              .sort();
            const chosen = failing[0];
            const transcript = `suite on the buggy tree: ${run.reports.length} classes; failing and passing in the baseline: ${failing.join(', ') || 'none'}`;
            if (!chosen) return finished('', started, transcript);
            const file = testSourceFile(project.layout, chosen);
            const text = await readFile(path.join(input.workspace, file), 'utf8');
            await writeInto(
              input.workspace,
              file,
              `${text.replace(/\n*$/, '\n')}// Submitted unchanged: this existing test fails on the buggy tree.\n`,
            );
            return finished(report(record, [file], `existing test ${chosen}`), started, transcript);
          } finally {
            await runner.close();
          }
        },
      };
    },
  };
}

/** One attempt of a script: files written (placeholders filled), files deleted, the reply. */
const ScriptAttemptSchema = z.strictObject({
  files: z.record(z.string(), z.string()).default({}),
  delete: z.array(z.string()).default([]),
  finalText: z.string().default(''),
});
export const ScriptSchema = z.strictObject({ attempts: z.array(ScriptAttemptSchema).min(1) });
export type Script = z.infer<typeof ScriptSchema>;

/**
 * The placeholders a script may use, so one script fits every case: `{testPackage}`,
 * `{testClass}` (simple name), `{testPath}` (the official test's path) and `{testSources}`.
 */
export function fillPlaceholders(text: string, record: CaseRecord, testSources: string): string {
  const official = record.officialTest.class;
  const dot = official.lastIndexOf('.');
  const values: Record<string, string> = {
    testPackage: dot < 0 ? '' : official.slice(0, dot),
    testClass: official.slice(dot + 1),
    testPath: record.officialTest.path,
    testSources,
  };
  return text.replace(/\{(testPackage|testClass|testPath|testSources)\}/g, (_, name: string) => {
    return values[name]!;
  });
}

export async function loadScript(file: string): Promise<Script> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new UserError(`--script ${file}: ${(error as Error).message}`);
  }
  const parsed = ScriptSchema.safeParse(value);
  if (!parsed.success) {
    throw new UserError(`--script ${file}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** Replays a script: attempt n takes the script's attempt n (the last one once they run out). */
function scriptedAgent(script: Script): EvaluationAgent {
  return {
    name: 'scripted',
    attempts: { kind: 'AsAsked' },
    sandboxed: false,
    network: { kind: 'none' },
    async forAttempt({ record, project }, attempt) {
      return {
        kind: 'agent',
        spec: { name: 'scripted', script: JSON.stringify(script) },
        async run(input) {
          const started = performance.now();
          const step = script.attempts[Math.min(attempt, script.attempts.length) - 1]!;
          const fill = (text: string) => fillPlaceholders(text, record, project.layout.testSources);
          for (const [file, content] of Object.entries(step.files)) {
            await writeInto(input.workspace, fill(file), fill(content));
          }
          for (const file of step.delete) {
            await rm(path.join(input.workspace, fill(file)), { recursive: true, force: true });
          }
          return finished(fill(step.finalText), started, `script attempt ${attempt}`);
        },
      };
    },
  };
}

export function offlineAgent(name: OfflineAgentName, script?: Script): EvaluationAgent {
  switch (name) {
    case 'witness':
      return witnessAgent();
    case 'none':
      return noneAgent();
    case 'existing-tests':
      return existingTestsAgent();
    case 'scripted':
      if (!script) throw new UserError(`--agent scripted needs --script <file.json>`);
      return scriptedAgent(script);
  }
}
