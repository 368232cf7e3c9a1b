import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TransformSummary } from '../src/stages/3-transform/driver.js';
import { exists, makeTempDir } from '../src/core/fs.js';
import { packageRoot } from '../src/core/package-root.js';
import { shellJoin } from '../src/core/process.js';
import type { TransformRecord } from '../src/stages/3-transform/transform.js';
import { startFakeOpenAI, type FakeOpenAI } from './fixtures/agents/fake-openai-server.js';
import { cli, fetchCorpus, readLines } from './helpers.js';

/*
 * The transform stage's agent engine on json-simple, with a scripted agent standing in for an
 * LLM: a bug injected into Jsoner.escape (the loop runs one index too far), then one Helper Call
 * Insertion step done by the agent, judged by the stage like an operator's, confirmed by Maven;
 * an agent that edits a test file, and one whose report is malformed, are refused with why.
 */

const JSONER = 'src/main/java/org/json/simple/Jsoner.java';
const CHARACTERS = 'src/main/java/org/json/simple/Characters.java';
const JSONER_TEST = 'src/test/java/org/json/simple/JsonerTest.java';
const WITNESS = 'org.json.simple.JsonerTest';
const TRANSFORM = 't_call_stack_deepen_v1';
const AGENT = path.join(packageRoot(), 'test', 'fixtures', 'agents', 'scripted-agent.mjs');

/** The loop of escape moves into a private helper the method calls: one more frame to the bug. */
const EXTRACT_HELPER = [
  {
    do: 'replace',
    file: JSONER,
    from: '\t\t\t}\n\t\t}\n\t\treturn builder.toString();\n\t}\n',
    to: '\t\t\t}\n\t\t}\n\t}\n',
  },
  {
    do: 'replace',
    file: JSONER,
    from: '\tpublic static String escape(final String escapable){\n\t\tfinal StringBuilder builder = new StringBuilder();\n',
    to: '\tpublic static String escape(final String escapable){\n\t\tfinal StringBuilder builder = new StringBuilder();\n\t\tappendEscaped(escapable, builder);\n\t\treturn builder.toString();\n\t}\n\n\tprivate static void appendEscaped(final String escapable, final StringBuilder builder){\n',
  },
];

const REPORT = `TRANSFORM_REPORT_JSON: ${JSON.stringify({
  ok: true,
  transform_id: TRANSFORM,
  changed_files: [JSONER],
  edit_sites: ['Jsoner.escape', 'Jsoner.appendEscaped'],
  what_was_added_or_wrapped: 'the escaping loop moved into a private appendEscaped helper',
  what_was_preserved: 'the public escape signature and the loop as it was',
  what_was_replaced_or_overwritten: 'the inline loop of escape',
  compatibility_with_previous_steps: 'first step',
  expected_effect_on_stealth: 'an ordinary extraction',
  expected_effect_on_trigger_depth: 'one more frame between escape and the loop',
})}`;

let dir: string;
let injected: string;

/** `transform --engine agent` with a scripted agent doing `attempt` once per step. */
async function transformWithAgent(name: string, attempt: unknown, ...extra: string[]) {
  const script = path.join(dir, `${name}.json`);
  const record = path.join(dir, `${name}.record.jsonl`);
  await writeFile(script, JSON.stringify({ record, attempts: [attempt] }));
  const out = path.join(dir, name);
  const result = await cli([
    'transform',
    'json-simple',
    '--from',
    injected,
    '--transforms',
    TRANSFORM,
    '--engine',
    'agent',
    '--agent',
    'command',
    '--agent-command',
    shellJoin([process.execPath, AGENT, '--script', script]),
    '--out',
    out,
    '--json',
    ...extra,
  ]);
  const [decided] = await readLines<TransformRecord>(path.join(out, 'transformed.jsonl'));
  const runs = await readLines<{ cwd: string; prompt: string }>(record);
  return { result, out, decided: decided!, runs };
}

beforeAll(async () => {
  await fetchCorpus('json-simple');
  dir = await makeTempDir('transform-agent');
  injected = path.join(dir, 'inject');
  const script = path.join(dir, 'inject.json');
  await writeFile(
    script,
    JSON.stringify({
      attempts: [
        {
          actions: [
            { do: 'replace', file: JSONER, from: 'i < characters', to: 'i <= characters' },
            { do: 'report', kind: 'valid' },
          ],
        },
      ],
    }),
  );
  const inject = await cli([
    'inject',
    'json-simple',
    '--types',
    'logic_predicate_inversion_in_guard',
    '--test',
    WITNESS,
    '--engine',
    'agent',
    '--agent',
    'command',
    '--agent-command',
    shellJoin([process.execPath, AGENT, '--script', script]),
    '--attempts',
    '1',
    '--max-tries',
    '1',
    '--out',
    injected,
    '--json',
  ]);
  expect(inject.exitCode, inject.stderr).toBe(0);
});

describe('transform --engine agent (scripted agent) on json-simple', () => {
  it("keeps the agent's helper extraction: compiles, the witness fails as before, Maven agrees", async () => {
    const { result, out, decided, runs } = await transformWithAgent('kept', {
      actions: [...EXTRACT_HELPER, { do: 'replay' }, { do: 'print', text: REPORT }],
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.json as TransformSummary).toMatchObject({ kept: 1, short: 0, engine: 'command' });
    expect(decided.outcome).toMatchObject({ kind: 'Kept', maven: 'TestErrored' });
    const [step] = decided.steps;
    expect(step).toMatchObject({
      operator: TRANSFORM,
      engine: { kind: 'agent', agent: { name: 'command' }, promptVersion: 1 },
      rejected: [],
    });
    expect(step!.diff).toContain(
      '+\tprivate static void appendEscaped(final String escapable, final StringBuilder builder){',
    );
    for (const [method, exception] of Object.entries(step!.failingMethods)) {
      expect(decided.buggyFailures[method]).toBe(exception);
    }
    // The run is on record; the agent saw the witness fail through its replay command.
    if (step!.engine.kind !== 'agent') throw new Error('not an agent step');
    const run = JSON.parse(
      await readFile(path.join(out, 'agent-runs', `${step!.engine.run}.json`), 'utf8'),
    ) as { attempts: { report: { kind: string } }[]; acceptedAttempt: number | null };
    expect(run.acceptedAttempt).toBe(1);
    expect(run.attempts).toHaveLength(1);
    expect(run.attempts[0]!.report.kind).toBe('Parsed');
    expect(runs[0]!.prompt).toContain(`transform_id: ${TRANSFORM}`);
    expect(runs[0]!.prompt).toContain('i <= characters');
    // It worked in a temporary copy away from the output, removed afterwards.
    expect(path.relative(out, runs[0]!.cwd).startsWith('..')).toBe(true);
    expect(await exists(runs[0]!.cwd)).toBe(false);
  });

  // A new top-level class is API surface to the signature check, as it is for an injection.
  it('refuses a step that adds a top-level class beside the bug file, with the reason', async () => {
    const condition =
      "((character >= '\\u0000') && (character <= '\\u001F')) || ((character >= '\\u007F') && (character <= '\\u009F')) || ((character >= '\\u2000') && (character <= '\\u20FF'))";
    const { result, decided } = await transformWithAgent(
      'two-files',
      {
        actions: [
          {
            do: 'replace',
            file: JSONER,
            from: `if(${condition}){`,
            to: 'if(Characters.needsUnicodeEscape(character)){',
          },
          {
            do: 'write',
            file: CHARACTERS,
            content: `package org.json.simple;\n\nfinal class Characters{\n\tprivate Characters(){\n\t}\n\n\tstatic boolean needsUnicodeEscape(final char character){\n\t\treturn ${condition};\n\t}\n}\n`,
          },
          { do: 'print', text: REPORT },
        ],
      },
      '--no-maven',
    );
    expect(result.exitCode, result.stderr).toBe(1);
    expect(decided.outcome).toMatchObject({
      kind: 'Short',
      stoppedAt: { kind: 'step', index: 0 },
      reason: `${CHARACTERS}: public or protected signature added:  class Characters`,
    });
  });

  it('refuses a step that edits a test file, with the reason', async () => {
    const { result, decided } = await transformWithAgent(
      'test-edit',
      {
        actions: [
          ...EXTRACT_HELPER,
          {
            do: 'replace',
            file: JSONER_TEST,
            from: 'public class JsonerTest',
            to: 'public final class JsonerTest',
          },
          { do: 'print', text: REPORT },
        ],
      },
      '--no-maven',
    );
    expect(result.exitCode, result.stderr).toBe(1);
    expect(decided.outcome).toMatchObject({
      kind: 'Short',
      stoppedAt: { kind: 'step', index: 0 },
      reason: `changes ${JSONER_TEST}, outside the production sources (src/main/java)`,
    });
  });

  it('refuses a step whose report is malformed, with the reason', async () => {
    const { result, decided } = await transformWithAgent(
      'malformed',
      { actions: [...EXTRACT_HELPER, { do: 'print', text: 'TRANSFORM_REPORT_JSON: {"ok": tru' }] },
      '--no-maven',
    );
    expect(result.exitCode, result.stderr).toBe(1);
    expect(decided.outcome).toMatchObject({
      kind: 'Short',
      stoppedAt: { kind: 'step', index: 0 },
    });
    if (decided.outcome.kind === 'Short') {
      expect(decided.outcome.reason).toMatch(
        /^report: the TRANSFORM_REPORT_JSON: line is not valid JSON/,
      );
    }
  });
});

describe('transform --engine agent --agent openai (fake endpoint) on json-simple', () => {
  let server: FakeOpenAI | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('edits through tools, runs the replay, and the stage keeps the step', async () => {
    server = await startFakeOpenAI([
      ...EXTRACT_HELPER.map((edit) => ({
        toolCalls: [
          {
            name: 'replace_in_file',
            arguments: { path: edit.file, old_text: edit.from, new_text: edit.to },
          },
        ],
      })),
      { toolCalls: [{ name: 'run_replay', arguments: {} }] },
      { content: `Moved the loop into appendEscaped.\n${REPORT}` },
    ]);
    const out = path.join(dir, 'openai');
    const result = await cli([
      'transform',
      'json-simple',
      '--from',
      injected,
      '--transforms',
      TRANSFORM,
      '--engine',
      'agent',
      '--agent',
      'openai',
      '--model',
      'fake-model',
      '--base-url',
      server.baseURL,
      '--no-maven',
      '--out',
      out,
      '--json',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const [decided] = await readLines<TransformRecord>(path.join(out, 'transformed.jsonl'));
    expect(decided!.outcome).toMatchObject({ kind: 'Kept', maven: null });
    expect(decided!.steps[0]).toMatchObject({
      engine: { kind: 'agent', agent: { name: 'openai', model: 'fake-model' } },
    });
    // The model saw the witness still fail through its run_replay tool.
    const replay = server.requests[3]!.body.messages.filter((m) => m.role === 'tool').at(-1);
    expect(replay?.content).toMatch(/exit code: 1/);
  });
});
