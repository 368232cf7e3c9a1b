import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentAdapter } from '../src/agents/adapters/index.js';
import type { AgentAdapter } from '../src/agents/types.js';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { exists, makeTempDir, removeTree } from '../src/core/fs.js';
import { resolveInstance } from '../src/repair/project.js';
import { readInstanceFile } from '../src/repair/read.js';
import { mavenTestRunner } from '../src/runners/maven.js';
import { timeLimit } from '../src/runners/time-limits.js';
import { withTimeLimit } from '../src/runners/wrappers.js';
import { isolatedJavaSetup } from '../src/sandbox/java-runs.js';
import type { MutantRecord } from '../src/stages/7-strengthen/stage-two.js';
import { RULE_FAMILIES } from '../src/stages/7-strengthen/mutants.js';
import { EQUIVALENCE_REPORT_PREFIX } from '../src/stages/7-strengthen/agent/equivalence.js';
import {
  strengthenInstance,
  type InstanceStrengthening,
} from '../src/stages/7-strengthen/strengthen.js';
import { mavenToolchain } from '../src/toolchains/maven/maven.js';
import { startFakeOpenAI } from './fixtures/agents/fake-openai-server.js';
import { ESCAPE, TEST, type PlantedInstance } from './planted-escape.js';
import { sharedPlantedInstance } from './shared-fixture.js';
import { PhaseClock } from '../src/core/phase-clock.js';

/*
 * Stage II's agent engine on the planted blind spot (test/planted-escape.ts): the agent's mutant
 * is read from its sandboxed workspace, and every run of it (survival, probes, the kill gate), with
 * gold's beside it, is in the sandbox. A scripted command agent and a local fake
 * OpenAI-compatible server stand in for a model.
 */

const cache = cacheLayout(resolveCacheDir());
let work: string;
let planted: PlantedInstance;

beforeAll(async () => {
  work = await makeTempDir('strengthen-mutation-agent-test');
  planted = await sharedPlantedInstance(work);
});

afterAll(async () => {
  await removeTree(work);
});

describe("Stage II's agent engine: the agent's mutants judged in the sandbox", () => {
  const MUTANT_REPORT = `MUTANT_REPORT_JSON: {"file": "${ESCAPE}", "rationale": "testSlash only checks that a string comes back"}`;

  async function agentMutation(adapter: AgentAdapter, readOnly: string[], count = 1) {
    const [instance] = await readInstanceFile(planted.instancesFile);
    const subject = await resolveInstance(instance!, path.dirname(planted.instancesFile), cache);
    const maven = withTimeLimit(mavenTestRunner(mavenToolchain, cache), () =>
      timeLimit('maven', 'run', undefined),
    );
    const runs: string[] = [];
    try {
      return {
        outcome: await strengthenInstance(subject, {
          cache,
          maven,
          seed: 1,
          engine: {
            kind: 'agent',
            setup: {
              adapter,
              attempts: 2,
              timeoutMs: 120_000,
              network: { kind: 'none' },
              readOnly,
              writable: [],
              saveRun: async (run) => {
                runs.push(run);
              },
              log: () => undefined,
            },
          },
          stages: ['mutation'],
          java: await isolatedJavaSetup(),
          holdOut: 0,
          mutantsPerFamily: 2,
          mutantFamilies: RULE_FAMILIES,
          agentMutants: count,
          clock: new PhaseClock(),
        }),
        runs,
      };
    } finally {
      await maven.close();
    }
  }

  function agentMutantsOf(outcome: InstanceStrengthening): MutantRecord[] {
    return outcome.kind === 'Strengthened' || outcome.kind === 'Unchanged'
      ? (outcome.mutation?.mutants.filter((mutant) => mutant.family === 'agent') ?? [])
      : [];
  }
  const agentMutantOf = (outcome: InstanceStrengthening) => agentMutantsOf(outcome)[0];

  it('a scripted command agent writes the quote-only fix: it survives, is told from gold and killed', async () => {
    const scripts = path.join(work, 'scripts');
    await mkdir(scripts, { recursive: true });
    // The mutant also tries to write a file on the host when its class loads: every run of an
    // agent's mutant is in the sandbox, where the host's temporary directories are not.
    const marker = path.join(work, 'mutant-ran-on-the-host');
    const attack = planted.quoteOnly.replace(
      'public class JSONValue {',
      `public class JSONValue {\n\tstatic {\n\t\ttry {\n\t\t\tnew java.io.File("${marker}").createNewFile();\n\t\t} catch (Exception e) {\n\t\t}\n\t}`,
    );
    expect(attack).not.toBe(planted.quoteOnly);
    await writeFile(path.join(scripts, 'JSONValue.java'), attack);
    // It also edits a test, which is discarded: only gold's files count.
    const adapter = createAgentAdapter({
      agent: 'command',
      agentCommand: `cp ${path.join(scripts, 'JSONValue.java')} ${ESCAPE} && echo '// x' >> ${TEST}; echo '${MUTANT_REPORT}'`,
    });
    const { outcome, runs } = await agentMutation(adapter, [scripts]);
    expect(runs).toEqual(['mutant-1']);
    const mutant = agentMutantOf(outcome);
    expect(mutant?.detail).toBe('testSlash only checks that a string comes back');
    expect(mutant?.fate).toMatchObject({ kind: 'NonEquivalent' });
    expect(mutant?.fate.kind === 'NonEquivalent' && mutant.fate.killedBy?.length).toBeGreaterThan(
      0,
    );
    expect(outcome.kind).toBe('Strengthened');
    expect(outcome.kind === 'Strengthened' && outcome.mutation?.failToPass.length).toBeGreaterThan(
      0,
    );
    // Its edit of a test file was not read, and its class never loaded outside the sandbox.
    expect(mutant?.patch).not.toContain('EscapeTest');
    expect(await exists(marker)).toBe(false);
  });

  it('a judge that writes to the host when it votes never reaches it: its runs are in the sandbox', async () => {
    const scripts = path.join(work, 'judge-scripts');
    await mkdir(scripts, { recursive: true });
    await writeFile(path.join(scripts, 'JSONValue.java'), planted.casesSwapped);
    const marker = path.join(work, 'judge-ran-on-the-host');
    // Asked for a mutant, it swaps two cases (no probe tells that from gold); asked to judge, it
    // votes and tries to leave a file on the host.
    const adapter = createAgentAdapter({
      agent: 'command',
      agentCommand: `if grep -q 'Is the variant equivalent'; then touch ${marker}; echo '${EQUIVALENCE_REPORT_PREFIX} {"equivalent": true, "reason": "moved cases"}'; else cp ${path.join(scripts, 'JSONValue.java')} ${ESCAPE}; echo '${MUTANT_REPORT}'; fi`,
    });
    const { outcome, runs } = await agentMutation(adapter, [scripts]);
    const [swapped] = agentMutantsOf(outcome);
    expect(swapped?.fate).toMatchObject({ kind: 'Unproven', votes: { equivalent: 3 } });
    expect(runs.filter((run) => run.startsWith('judge-'))).toHaveLength(3);
    expect(await exists(marker)).toBe(false);
  });

  it('runs against a local OpenAI-compatible server: a mutant the tests catch is sent back, the next kept; an equivalent one gets three recorded votes', async () => {
    const caught = planted.slashOnly;
    const write = (content: string) => ({
      toolCalls: [{ name: 'write_file', arguments: { path: ESCAPE, content } }],
    });
    const vote = (equivalent: boolean) => ({
      content: `The cases only moved.\n${EQUIVALENCE_REPORT_PREFIX} {"equivalent": ${equivalent}, "reason": "vote ${equivalent}"}`,
    });
    const server = await startFakeOpenAI([
      write(caught),
      { content: MUTANT_REPORT },
      write(planted.quoteOnly),
      { content: MUTANT_REPORT },
      // The second mutant swaps two cases of the switch: no probe can tell it from gold.
      write(planted.casesSwapped),
      { content: MUTANT_REPORT },
      vote(true),
      vote(false),
      vote(true),
    ]);
    try {
      process.env.WITNESSGYM_OPENAI_API_KEY = 'test-key';
      const adapter = createAgentAdapter({
        agent: 'openai',
        model: 'fake-model',
        baseUrl: server.baseURL,
      });
      const { outcome, runs } = await agentMutation(adapter, [], 2);
      const [mutant, swapped] = agentMutantsOf(outcome);
      expect(mutant?.fate).toMatchObject({ kind: 'NonEquivalent' });
      // The judge's three votes are recorded on the unproven mutant, and decide nothing.
      expect(swapped?.fate).toEqual({
        kind: 'Unproven',
        compared: expect.any(Number),
        votes: {
          equivalent: 2,
          different: 1,
          unanswered: 0,
          reasons: ['vote true', 'vote false', 'vote true'],
        },
      });
      expect(runs.filter((run) => run.startsWith(`judge-${swapped!.id}-`))).toHaveLength(3);
      const prompts = server.requests.map((request) =>
        request.body.messages.map((message) => message.content ?? '').join('\n'),
      );
      expect(prompts[0]).toContain('plausible but WRONG version of the fix');
      // The second attempt was told which existing test caught the first.
      expect(prompts.some((prompt) => prompt.includes('EscapeTest#testQuote'))).toBe(true);
    } finally {
      delete process.env.WITNESSGYM_OPENAI_API_KEY;
      await server.close();
    }
  });
});
