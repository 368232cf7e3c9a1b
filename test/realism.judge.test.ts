import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { createAgentAdapter } from '../src/agents/adapters/index.js';
import { createOpenAIAdapter } from '../src/agents/adapters/openai.js';
import { makeTempDir, removeTree } from '../src/core/fs.js';
import {
  JUDGE_STORE,
  JUDGE_SYSTEM_PROMPT,
  runJudge,
  type BlindPair,
} from '../src/realism/judge.js';

/*
 * The judge engine against a local OpenAI-compatible endpoint that reads each prompt: it calls a
 * patch injected when the patch holds a marker line (so a perfect judge's numbers are known), and
 * refuses the first `refuse` requests with HTTP 400, as an endpoint that is down would.
 */

const MARKER = '+        int plantedMarker = 0;';

interface Request {
  messages: { role: string; content: string }[];
}

async function startJudgeServer(refuse: number, port = 0) {
  const requests: Request[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Request;
      requests.push(body);
      if (requests.length <= refuse) {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ error: { message: 'refused', type: 'invalid_request_error' } }),
        );
        return;
      }
      const prompt = body.messages.find((message) => message.role === 'user')!.content;
      let probability: number;
      if (prompt.includes('RIGHT: patch')) {
        const [left] = prompt.split('RIGHT: patch');
        // P(left is the real one): high when the marked (injected) patch is on the right.
        probability = left!.includes(MARKER) ? 0.2 : 0.9;
      } else probability = prompt.includes(MARKER) ? 0.9 : 0.1;
      const content = `Reasoning.\nREALISM_JUDGEMENT_JSON: {"probability": ${probability}, "rationale": "marker"}`;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: 0,
          model: 'judge',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content },
              finish_reason: 'stop',
              logprobs: null,
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    port: address.port,
    baseURL: `http://127.0.0.1:${address.port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const patchText = (name: string, marked: boolean) =>
  [
    `--- a/${name}.java`,
    `+++ b/${name}.java`,
    `@@ -1,2 +1,${marked ? 3 : 2} @@`,
    ' class X {',
    ...(marked ? [MARKER] : []),
    '-    int a = 1;',
    '+    int a = 2;',
    '',
  ].join('\n');

const PAIRS: BlindPair[] = [1, 2].map((index) => ({
  pairId: `Q${index}`,
  injected: {
    blindId: `P${index}a`,
    side: 'injected',
    cluster: `injection:i${index}`,
    text: patchText(`A${index}`, true),
  },
  real: {
    blindId: `P${index}b`,
    side: 'real',
    cluster: `bug:Lang-${index}`,
    text: patchText(`B${index}`, false),
  },
}));
// A control pair: the first pair's injected patch with a marker of its own (planted artefacts).
const CONTROL_PAIRS: BlindPair[] = [
  { ...PAIRS[0]!, pairId: 'Q3', injected: { ...PAIRS[0]!.injected, blindId: 'P3a' } },
];
// Two pairs: 2 × 2 patches × 3 single judgements + 2 × 2 orientations; the control pair's 2.
const PLANNED = 18;

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await removeTree(dir);
});

describe('the realism judge through the openai adapter', () => {
  it('asks each judgement in a fresh two-message context, records one row each, and resumes what failed', async () => {
    const out = await makeTempDir('realism-judge-test');
    dirs.push(out);
    const bootstrap = { resamples: 500, seed: 1, level: 0.9 };
    const judgeWith = (baseURL: string) =>
      runJudge({
        adapter: createOpenAIAdapter({ baseURL, model: 'judge', maxTurns: 1, maxRetries: 0 }),
        pairs: PAIRS,
        controlPairs: CONTROL_PAIRS,
        out,
        seed: 1,
        timeoutMs: 30_000,
        bootstrap,
        log: () => {},
      });

    const down = await startJudgeServer(5);
    const first = await judgeWith(down.baseURL).finally(() => down.close());
    expect(down.requests).toHaveLength(PLANNED);
    expect(first.obtained).toBe(PLANNED - 5);
    expect(first.failed).toBe(5);

    // The same endpoint again: the judge's spec (its URL included) names whose rows are resumed.
    const up = await startJudgeServer(0, down.port);
    const second = await judgeWith(up.baseURL).finally(() => up.close());
    // Only the five that failed are asked again.
    expect(up.requests).toHaveLength(5);
    expect(second.obtained).toBe(PLANNED);
    expect(second.failed).toBe(0);

    for (const request of [...down.requests, ...up.requests]) {
      expect(request.messages.map((message) => message.role)).toEqual(['system', 'user']);
      expect(request.messages[0]!.content).toBe(JUDGE_SYSTEM_PROMPT);
      // Blind: no side, source or cluster reaches the judge.
      expect(request.messages[1]!.content).not.toMatch(/injection:|bug:|Lang-/);
    }

    // The marker-reading judge is always right.
    expect(second.single.accuracy).toMatchObject({ correct: 12, total: 12, accuracy: 1 });
    expect(second.single.auc?.auc).toBe(1);
    expect(second.pairwise.accuracy).toMatchObject({ correct: 2, total: 2, accuracy: 1 });
    expect(second.pairwise.auc?.auc).toBe(1);
    expect(second.single.accuracy?.equivalence.kind).toBe('Distinguishable');
    expect(second.control).toMatchObject({ kind: 'Passed', accuracy: { correct: 1, total: 1 } });

    const db = new Database(path.join(out, JUDGE_STORE), { readonly: true });
    const rows = db
      .prepare(
        'SELECT task, outcome, COUNT(*) AS n FROM judgements GROUP BY task, outcome ORDER BY task',
      )
      .all();
    db.close();
    expect(rows).toEqual([
      { task: 'control', outcome: 'Judged', n: 2 },
      { task: 'pair', outcome: 'Judged', n: 4 },
      { task: 'single', outcome: 'Judged', n: 12 },
    ]);
  });
});

describe('a process judge', () => {
  it('runs in the sandbox, where the key that says which side is which cannot be read', async () => {
    const out = await makeTempDir('realism-judge-blind');
    dirs.push(out);
    const key = path.join(out, 'key.jsonl');
    await writeFile(key, '{"blindId":"P1a","side":"injected"}\n');
    // An adversarial judge: it answers from the key when it can open it.
    const answer = (probability: number, rationale: string) =>
      `echo 'REALISM_JUDGEMENT_JSON: {"probability": ${probability}, "rationale": "${rationale}"}'`;
    const command = `if [ -r ${key} ]; then ${answer(1, 'read the key')}; else ${answer(0.5, 'blind')}; fi`;
    const judgeIn = async (store: string, confined: boolean) => {
      await runJudge({
        adapter: createAgentAdapter({ agent: 'command', agentCommand: command }),
        pairs: PAIRS.slice(0, 1),
        controlPairs: [],
        out: store,
        seed: 1,
        timeoutMs: 30_000,
        bootstrap: { resamples: 100, seed: 1, level: 0.9 },
        log: () => {},
        ...(confined ? { confined: { network: { kind: 'none' as const } } } : {}),
      });
      const db = new Database(path.join(store, JUDGE_STORE), { readonly: true });
      const rationales = db.prepare('SELECT DISTINCT rationale FROM judgements').pluck().all();
      db.close();
      return rationales;
    };
    // Without the sandbox the attack works: that is what the sandbox is for.
    expect(await judgeIn(path.join(out, 'open'), false)).toEqual(['read the key']);
    expect(await judgeIn(path.join(out, 'confined'), true)).toEqual(['blind']);
  });
});
