import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parsePatch } from 'diff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentAdapter } from '../src/agents/adapters/index.js';
import type { AgentAdapter } from '../src/agents/types.js';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { exists, makeTempDir, removeTree, sha256Text } from '../src/core/fs.js';
import type { RepairInstance } from '../src/repair/instance.js';
import { modifiedLines } from '../src/repair/patch.js';
import { resolveInstance, type RepairSubject } from '../src/repair/project.js';
import { readInstanceFile } from '../src/repair/read.js';
import type { GoldAlternative } from '../src/stages/7-strengthen/alternatives.js';
import {
  agentStageOne,
  type AgentPhase,
  type AgentStageOneOutcome,
} from '../src/stages/7-strengthen/agent/engine.js';
import type { SliceCoverage } from '../src/stages/7-strengthen/coverage.js';
import { startFakeOpenAI } from './fixtures/agents/fake-openai-server.js';
import { cli } from './helpers.js';
import { sharedOneCaseBench } from './shared-fixture.js';

/*
 * Stage I's agent engine on a json-simple instance. The relevant line the suite "missed" is given
 * (a line gold changes, which the witness reaches): what is tested is the engine and its gates,
 * all run in the sandbox. A scripted command agent copies the witness into a new
 * `…StrengthenedTest` class (it passes on gold, fails on the base tree, covers the line); others
 * write a test that fails on gold, edit an existing test, or write to the host.
 */

const cache = cacheLayout(resolveCacheDir());
let work: string;
let scripts: string;
let instance: RepairInstance;
let subject: RepairSubject;
let before: Extract<SliceCoverage, { kind: 'Measured' }>;
let missedLine: string;
/** The witness as a new class: its file in the tree, and its source. */
let strengthened: { file: string; source: string; testClass: string };
/** The witness's binary name. */
let witness: string;

beforeAll(async () => {
  work = await makeTempDir('strengthen-agent-test');
  scripts = path.join(work, 'scripts');
  await mkdir(scripts, { recursive: true });
  const { bench, record } = await sharedOneCaseBench(work);
  const out = path.join(work, 'repair');
  const exported = await cli(['case', 'export', bench, '--as', 'repair', '--out', out, '--json']);
  expect(exported.exitCode, exported.stderr).toBe(0);
  [instance] = (await readInstanceFile(path.join(out, 'instances.jsonl'))) as [RepairInstance];
  subject = await resolveInstance(instance, out, cache);
  const file = record.bugRelatedFiles[0]!;
  const line = modifiedLines(instance.patch, file).changed[0]!;
  missedLine = `${file}:${line}`;
  before = {
    kind: 'Measured',
    files: [{ file, relevant: [line], covered: [], missed: [line] }],
    relevant: 1,
    covered: 0,
  };
  witness = record.officialTest.class;
  const witnessClass = witness.replace(/^.*\./, '');
  // The test patch adds the witness's file whole: its added lines are the source.
  const witnessPatch = parsePatch(instance.test_patch).find(
    (filePatch) => filePatch.newFileName === `b/${record.officialTest.path}`,
  )!;
  const witnessSource = witnessPatch.hunks
    .flatMap((hunk) => hunk.lines)
    .filter((text) => text.startsWith('+'))
    .map((text) => text.slice(1))
    .join('\n');
  const name = `${witnessClass.replace(/Test$/, '')}StrengthenedTest`;
  strengthened = {
    file: record.officialTest.path.replace(/[^/]*\.java$/, `${name}.java`),
    testClass: record.officialTest.class.replace(/[^.]*$/, name),
    source: `${witnessSource.replace(new RegExp(`\\b${witnessClass}\\b`, 'g'), name)}\n`,
  };
  await writeFile(path.join(scripts, 'Strengthened.java'), strengthened.source);
});

afterAll(async () => {
  await removeTree(work);
});

const REPORT = `STRENGTHEN_REPORT_JSON: {"files": [], "summary": "scripted"}`;

/** A command agent: the shell line runs in the workspace, inside the agent sandbox. */
function commandAgent(line: string): AgentAdapter {
  return createAgentAdapter({ agent: 'command', agentCommand: `${line}; echo '${REPORT}'` });
}

async function runEngine(
  adapter: AgentAdapter,
  options: { guard?: GoldAlternative[]; attempts?: number; writable?: string[] } = {},
): Promise<{ outcome: AgentStageOneOutcome; phases: AgentPhase[] }> {
  const phases: AgentPhase[] = [];
  const outcome = await agentStageOne(subject, before, options.guard ?? [], {
    cache,
    adapter,
    attempts: options.attempts ?? 1,
    timeoutMs: 120_000,
    network: { kind: 'none' },
    readOnly: [scripts],
    writable: options.writable ?? [],
    saveRun: async (phase) => {
      phases.push(phase as AgentPhase);
    },
    log: () => undefined,
  });
  return { outcome, phases };
}

function copyIn(source: string, target: string): string {
  return `mkdir -p ${path.dirname(target)} && cp ${source} ${target}`;
}

describe('strengthen --engine agent: the gates, in the sandbox', () => {
  it('keeps a new test class that passes on gold, covers the missed line and fails on the base tree', async () => {
    const { outcome, phases } = await runEngine(
      commandAgent(copyIn(path.join(scripts, 'Strengthened.java'), strengthened.file)),
    );
    expect(outcome.kind).toBe('Amplified');
    if (outcome.kind !== 'Amplified') return;
    expect(outcome.classes.map((entry) => entry.testClass)).toEqual([strengthened.testClass]);
    expect(outcome.covered).toEqual([missedLine]);
    // The witness's failing methods fail on the base tree as the new class's.
    const failing = instance.FAIL_TO_PASS.filter((name) => name.startsWith(`${witness}#`)).map(
      (name) => `${strengthened.testClass}#${name.split('#')[1]}`,
    );
    expect(failing.length).toBeGreaterThan(0);
    expect(outcome.failToPass).toEqual(failing);
    // Nothing left missed: no coverage phase; the decoupling revision (the same file) is kept.
    expect(phases).toEqual(['generation', 'decoupling']);
    expect(outcome.classes[0]!.provenance[0]!.operator).toBe('agent:decoupling');
  });

  it('drops a test that fails on a correct alternative of gold (the guard)', async () => {
    // An "alternative" that is the base tree itself: every FAIL_TO_PASS method fails there, so the
    // guard drops exactly the methods that expose the bug.
    const wrong: GoldAlternative = {
      id: sha256Text('').slice(0, 16),
      operator: 'none',
      description: 'the base tree',
      patch: '',
    };
    const { outcome } = await runEngine(
      commandAgent(copyIn(path.join(scripts, 'Strengthened.java'), strengthened.file)),
      { guard: [wrong] },
    );
    expect(outcome.kind).toBe('Amplified');
    if (outcome.kind !== 'Amplified') return;
    expect(outcome.failToPass).toEqual([]);
    const guarded = outcome.losses.filter((loss) => loss.gate === 'guard');
    expect(guarded.length).toBeGreaterThan(0);
  });

  it('feeds back a test that fails on gold, and strips edits to existing files', async () => {
    // Every test method fails on gold, so no attempt is kept and the second hears why.
    const failing = strengthened.source.replace(
      /(public void \w+\(\)[^{]*\{)/g,
      '$1 if (true) throw new AssertionError("scripted failure");',
    );
    const prompts = path.join(work, 'prompts');
    await mkdir(prompts, { recursive: true });
    await writeFile(path.join(scripts, 'Failing.java'), failing);
    const witnessFile = instance.test_patch.match(/^\+\+\+ b\/(.*)$/m)![1]!;
    const { outcome } = await runEngine(
      commandAgent(
        `cat > ${prompts}/prompt-$(ls ${prompts} | wc -l).txt; echo '// edited' >> ${witnessFile}; ${copyIn(path.join(scripts, 'Failing.java'), strengthened.file)}`,
      ),
      { attempts: 2, writable: [prompts] },
    );
    expect(outcome.kind).toBe('Amplified');
    if (outcome.kind !== 'Amplified') return;
    expect(outcome.classes).toEqual([]);
    const gates = new Set(outcome.losses.map((loss) => loss.gate));
    expect(gates).toContain('fails-on-gold');
    expect(gates).toContain('not-a-new-test-class');
    expect(outcome.losses.find((loss) => loss.gate === 'not-a-new-test-class')!.tests).toContain(
      witnessFile,
    );
    const second = await readFile(path.join(prompts, 'prompt-1.txt'), 'utf8');
    expect(second).toContain('was not kept');
    expect(second).toContain('scripted failure');
  });

  it("runs the agent's tests only in the sandbox: a static initializer cannot write to the host", async () => {
    const marker = path.join(work, 'written-by-a-test');
    const attack = strengthened.source.replace(
      /(public class \w+[^{]*\{)/,
      `$1 static { try { new java.io.File("${marker}").createNewFile(); } catch (Exception e) { } }`,
    );
    await writeFile(path.join(scripts, 'Attack.java'), attack);
    const { outcome } = await runEngine(
      commandAgent(copyIn(path.join(scripts, 'Attack.java'), strengthened.file)),
    );
    // The class ran (it was kept: it passes on gold and covers the line), its initializer too.
    expect(outcome.kind === 'Amplified' && outcome.classes.length).toBe(1);
    expect(await exists(marker)).toBe(false);
  });

  it('runs the built-in agent against a local OpenAI-compatible server', async () => {
    const write = {
      toolCalls: [
        {
          name: 'write_file',
          arguments: { path: strengthened.file, content: strengthened.source },
        },
      ],
    };
    const server = await startFakeOpenAI([write, { content: REPORT }, write, { content: REPORT }]);
    try {
      process.env.WITNESSGYM_OPENAI_API_KEY = 'test-key';
      const adapter = createAgentAdapter({
        agent: 'openai',
        model: 'fake-model',
        baseUrl: server.baseURL,
      });
      const { outcome, phases } = await runEngine(adapter);
      expect(phases).toEqual(['generation', 'decoupling']);
      expect(outcome.kind === 'Amplified' && outcome.covered).toEqual([missedLine]);
      const first = server.requests[0]!.body.messages.map((m) => m.content ?? '').join('\n');
      expect(first).toContain('StrengthenedTest');
      expect(first).toContain(missedLine.replace(/:(\d+)$/, ':$1:'));
    } finally {
      delete process.env.WITNESSGYM_OPENAI_API_KEY;
      await server.close();
    }
  });
});
