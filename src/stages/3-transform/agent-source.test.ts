import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentRunInput, AgentRunResult } from '../../agents/types.js';
import { exists, makeTempDir, removeTree } from '../../core/fs.js';
import { loadJavaGrammar } from '../../lang/java/syntax.js';
import type { ProjectRef } from '../../project/project.js';
import type { ExecutionContextRecord } from '../1-trace/trace.js';
import { DEFAULT_TESTS } from '../../project/recipe.js';
import { DEFAULT_BUILD } from '../../toolchains/build-settings.js';
import { projectLayout } from '../../toolchains/layout.js';
import { agentSource, agentStepRunId } from './agent-source.js';
import { TRANSFORM_REPORT_PREFIX } from './agent-task/report.js';
import type { AgentTransformResult } from './agent-task/task.js';
import { DEMO_TRANSFORM_SPEC } from './agent-task/test-support.js';
import type { StepCandidate } from './candidates.js';
import {
  BUGGY_COUNTER,
  CLEAN_COUNTER,
  COUNTER,
  COUNTER_TEST,
  counterSite,
} from './test-support.js';

const REPORT = `${TRANSFORM_REPORT_PREFIX} ${JSON.stringify({
  ok: true,
  transform_id: DEMO_TRANSFORM_SPEC.id,
  changed_files: [COUNTER],
  edit_sites: ['Counter.add', 'Counter.addStep'],
  what_was_added_or_wrapped: 'a private helper for the update',
  what_was_preserved: 'the guard',
  what_was_replaced_or_overwritten: 'the inline update',
  compatibility_with_previous_steps: 'first step',
  expected_effect_on_stealth: 'an ordinary extraction',
  expected_effect_on_trigger_depth: 'one more frame',
})}`;

const HELPER = BUGGY_COUNTER.replace(
  '            count += step;\n        }\n    }\n',
  '            addStep(step);\n        }\n    }\n\n    private void addStep(int step) {\n        count += step;\n    }\n',
);

let root: string;
let project: ProjectRef;

beforeAll(loadJavaGrammar);

beforeEach(async () => {
  root = await makeTempDir('agent-source');
  for (const [file, text] of [
    [COUNTER, CLEAN_COUNTER],
    [COUNTER_TEST, 'package p;\n\npublic class CounterTest {\n}\n'],
    ['pom.xml', '<project/>\n'],
  ] as const) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
  project = {
    label: 'demo@1.0',
    base: counterSite().state.base,
    root,
    build: DEFAULT_BUILD,
    layout: projectLayout({}),
    tests: DEFAULT_TESTS,
  };
});

afterEach(async () => {
  await removeTree(root);
});

/** An in-memory agent: edits its workspace with `edit`, then answers `finalText`. */
function agent(edit: (workspace: string) => Promise<void>, finalText: string) {
  const seen: { workspace: string; counter: string; prompt: string }[] = [];
  return {
    seen,
    adapter: {
      kind: 'agent' as const,
      spec: { name: 'fake', model: 'fake-model' },
      run: async (input: AgentRunInput): Promise<AgentRunResult> => {
        const counter = await readFile(path.join(input.workspace, COUNTER), 'utf8');
        seen.push({ workspace: input.workspace, counter, prompt: input.userPrompt });
        await edit(input.workspace);
        return {
          outcome: { kind: 'Exited', code: 0, signal: null },
          finalText,
          transcript: finalText,
          durationMs: 1,
        };
      },
    },
  };
}

function sourceFor(fake: ReturnType<typeof agent>) {
  const runs: { id: string; result: AgentTransformResult }[] = [];
  const source = agentSource(DEMO_TRANSFORM_SPEC, {
    adapter: fake.adapter,
    agentTimeoutMs: 1000,
    project,
    operatorNames: new Map([[DEMO_TRANSFORM_SPEC.id, DEMO_TRANSFORM_SPEC.operator]]),
    saveRun: async (id, result) => void runs.push({ id, result }),
    log: () => {},
  });
  return { source, runs };
}

const writeCounter = (text: string) => (workspace: string) =>
  writeFile(path.join(workspace, COUNTER), text);

describe('agentSource', () => {
  it("offers what the agent changed in a copy of the step's state, and records the run", async () => {
    const fake = agent(writeCounter(HELPER), `extracted\n${REPORT}`);
    const { source, runs } = sourceFor(fake);
    const judged: StepCandidate[] = [];
    const at = (file: string, className: string, method: string) => ({
      file,
      className,
      method,
      signature: `${method}(int)`,
      line: 1,
    });
    const site = counterSite({
      context: {
        testClass: 'p.CounterTest',
        trace: [
          at('src/main/java/p/Steps.java', 'p.Steps', 'check'),
          at(COUNTER, 'p.Counter', 'add'),
        ],
        size: 2,
        bucket: 'short',
      } as ExecutionContextRecord,
    });
    const offer = await source.offer(site, async (candidate) => {
      judged.push(candidate);
      return { kind: 'Kept', evidence: 'ok' };
    });
    // The agent started from the buggy state, not the pristine tree, and its copy is gone.
    expect(fake.seen[0]!.counter).toBe(BUGGY_COUNTER);
    // Methods of the trace in the bug's file come first among the candidate anchors.
    expect(fake.seen[0]!.prompt).toContain(
      `CANDIDATE ANCHORS:\n- p.Counter.add(int)\n  file: ${COUNTER}\n- p.Steps.check(int)`,
    );
    expect(await exists(fake.seen[0]!.workspace)).toBe(false);
    expect(judged).toHaveLength(1);
    expect(judged[0]!.changes).toEqual([{ file: COUNTER, before: BUGGY_COUNTER, after: HELPER }]);
    const runId = agentStepRunId(DEMO_TRANSFORM_SPEC, site, fake.adapter);
    expect(offer).toMatchObject({
      kind: 'Kept',
      evidence: 'ok',
      candidate: {
        description: 'Helper Call Insertion: a private helper for the update (agent fake)',
        added: ['addStep'],
        anchor: site.anchor,
      },
      engine: { kind: 'agent', agent: { name: 'fake', model: 'fake-model' }, run: runId },
    });
    expect(runs.map((run) => run.id)).toEqual([runId]);
    expect(runs[0]!.result).toMatchObject({ acceptedAttempt: 1, stop: 'accepted' });
  });

  it("passes on the stage's reason when the step is turned down", async () => {
    const fake = agent(
      (workspace) =>
        writeFile(path.join(workspace, COUNTER_TEST), 'package p;\n\nclass CounterTest {}\n'),
      REPORT,
    );
    const { source, runs } = sourceFor(fake);
    const offer = await source.offer(counterSite(), async (candidate) => ({
      kind: 'Rejected',
      reason: `changes ${candidate.changes[0]!.file}, outside the production sources`,
    }));
    expect(offer).toMatchObject({
      kind: 'NoneKept',
      reason: `changes ${COUNTER_TEST}, outside the production sources`,
      rejected: [{ reason: `changes ${COUNTER_TEST}, outside the production sources` }],
    });
    expect(runs[0]!.result.acceptedAttempt).toBeNull();
  });

  it('refuses a kept workspace whose report line is malformed', async () => {
    const fake = agent(writeCounter(HELPER), `${TRANSFORM_REPORT_PREFIX} {"ok": tru`);
    const { source } = sourceFor(fake);
    const offer = await source.offer(counterSite(), async () => ({ kind: 'Kept', evidence: 'ok' }));
    expect(offer.kind).toBe('NoneKept');
    if (offer.kind === 'NoneKept') {
      expect(offer.reason).toMatch(/^report: the TRANSFORM_REPORT_JSON: line is not valid JSON/);
    }
  });

  it('gives another run id to another state, step or agent', () => {
    const site = counterSite();
    const fake = agent(async () => {}, '');
    const id = agentStepRunId(DEMO_TRANSFORM_SPEC, site, fake.adapter);
    const other = { ...fake.adapter, spec: { name: 'fake', model: 'other-model' } };
    const ids = new Set([
      id,
      agentStepRunId(DEMO_TRANSFORM_SPEC, { ...site, step: 1 }, fake.adapter),
      agentStepRunId(DEMO_TRANSFORM_SPEC, site, other),
      agentStepRunId(
        DEMO_TRANSFORM_SPEC,
        { ...site, state: { ...site.state, id: 'ffffffffffffffff' } },
        fake.adapter,
      ),
    ]);
    expect(ids.size).toBe(4);
  });
});
