import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../src/core/fs.js';
import type { ExecutionContextRecord } from '../src/stages/1-trace/trace.js';
import { cli, fetchCorpus, progressLines } from './helpers.js';

/* Execution contexts of a real corpus project, through the CLI. */

interface TraceJson {
  classes: number;
  tracedNow: number;
  resumed: number;
  buckets: Record<string, number>;
  verdictsMatchingBaseline: number;
}

async function readMap(file: string): Promise<ExecutionContextRecord[]> {
  return (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ExecutionContextRecord);
}

let dir: string;
let first: ExecutionContextRecord[];

beforeAll(async () => {
  await fetchCorpus('json-simple');
  dir = await makeTempDir('trace-test');
  const result = await cli(['trace', 'json-simple', '--out', path.join(dir, 'a.jsonl'), '--json']);
  expect(result.exitCode, result.stderr).toBe(0);
  const summary = result.json as TraceJson;
  expect(summary).toMatchObject({ classes: 8, tracedNow: 8, verdictsMatchingBaseline: 8 });
  first = await readMap(path.join(dir, 'a.jsonl'));
});

describe('trace json-simple', () => {
  it('finds the parser methods that JSONParserTest reaches, with files and lines', () => {
    const parser = first.find((r) => r.testClass === 'org.json.simple.parser.JSONParserTest')!;
    const signatures = parser.trace.map((m) => `${m.className}.${m.signature}`);
    expect(signatures).toContain('org.json.simple.parser.JSONParser.parse(java.lang.String)');
    expect(signatures).toContain(
      'org.json.simple.parser.JSONParser.parse(java.io.Reader, org.json.simple.parser.ContainerFactory)',
    );
    expect(signatures).toContain('org.json.simple.parser.Yylex.yylex()');
    const parse = parser.trace.find((m) => m.signature === 'parse(java.lang.String)')!;
    expect(parse.file).toBe('src/main/java/org/json/simple/parser/JSONParser.java');
    expect(parse.line).toBeGreaterThan(0);
    expect(parser.size).toBe(parser.trace.length);
    expect(parser.bucket).toBe(parser.size <= 40 ? 'short' : 'mid-short');
    expect(parser.anchors).toHaveLength(12);
    expect(parser.bugRelatedFiles.length).toBeGreaterThan(0);
    // Test code is not production code.
    expect(signatures.some((s) => s.includes('Test.'))).toBe(false);
  });

  it('gives the same contexts on a second run', async () => {
    const result = await cli([
      'trace',
      'json-simple',
      '--out',
      path.join(dir, 'b.jsonl'),
      '--json',
    ]);
    expect(result.exitCode).toBe(0);
    const second = await readMap(path.join(dir, 'b.jsonl'));
    const sizes = (records: ExecutionContextRecord[]) =>
      Object.fromEntries(records.map((r) => [r.testClass, r.trace.map((m) => m.signature)]));
    expect(sizes(second)).toEqual(sizes(first));
  });

  it('resumes an interrupted map instead of starting over', async () => {
    const out = path.join(dir, 'a.jsonl');
    const text = await readFile(out, 'utf8');
    // Keep three whole records and half of the fourth, as a crash would leave it.
    const lines = text.trim().split('\n');
    await writeFile(out, `${lines.slice(0, 3).join('\n')}\n${lines[3]!.slice(0, 40)}`);
    const result = await cli(['trace', 'json-simple', '--out', out, '--json']);
    expect(result.json).toMatchObject({ classes: 8, tracedNow: 5, resumed: 3 });
  });

  it('adds per-test records to a map traced without them, with its manifest beside it', async () => {
    const out = path.join(dir, 'b.jsonl');
    const perTest = await cli(['trace', 'json-simple', '--out', out, '--per-test', '--json']);
    expect(perTest.exitCode, perTest.stderr).toBe(0);
    expect(perTest.json).toMatchObject({ classes: 8, tracedNow: 8, resumed: 0 });
    expect(progressLines(perTest)).toContain(
      `trace: tracing ${out} afresh: it has no per-test records`,
    );
    const records = await readMap(out);
    const parser = records.filter((r) => r.testClass === 'org.json.simple.parser.JSONParserTest');
    expect(parser.filter((r) => r.testMethod === null)).toHaveLength(1);
    expect(parser.filter((r) => r.testMethod !== null).length).toBeGreaterThan(1);
    const manifest = JSON.parse(await readFile(path.join(dir, 'b.manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({
      kind: 'execution-context-manifest',
      inputs: { perTest: true },
    });

    const plain = await cli(['trace', 'json-simple', '--out', out, '--json']);
    expect(plain.json).toMatchObject({ classes: 8, tracedNow: 0, resumed: 8 });
  });
});
