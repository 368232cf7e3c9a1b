import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { removeTree } from '../src/core/fs.js';
import { runProcess } from '../src/core/process.js';
import { patchOf } from '../src/project/state.js';
import type { RepairInstance } from '../src/repair/instance.js';
import { cli } from './helpers.js';

/*
 * A planted blind spot in real json-simple, for Stage II's tests. The bug drops two cases of
 * JSONValue.escape (the quote and the slash); gold restores both. The instance's failing test
 * checks the quote; its passing test escapes a slash but only checks that something came back. So
 * a fix of the quote alone — a plausible wrong patch — passes every test of the instance.
 */

export const ESCAPE = 'src/main/java/org/json/simple/JSONValue.java';
export const TEST = 'src/test/java/org/json/simple/EscapeTest.java';
export const INSTANCE_ID = 'json-simple-escape-planted';
export const QUOTE_TEST = 'org.json.simple.EscapeTest#testQuote';

/** A case of escape's switch, in the file's own line breaks (json-simple's are CRLF). */
function switchCase(lines: string[], lineBreak: string): string {
  return lines.map((line) => `${line}${lineBreak}`).join('');
}
const QUOTE_LINES = ["\t\t\tcase '\"':", '\t\t\t\tsb.append("\\\\\\"");', '\t\t\t\tbreak;'];
const SLASH_LINES = ["\t\t\tcase '/':", '\t\t\t\tsb.append("\\\\/");', '\t\t\t\tbreak;'];

const ESCAPE_TEST = `package org.json.simple;

import org.junit.Assert;
import org.junit.Test;

public class EscapeTest {
    @Test
    public void testQuote() {
        Assert.assertEquals("a\\\\\\"b", JSONValue.escape("a\\"b"));
    }

    @Test
    public void testSlash() {
        String escaped = JSONValue.escape("a/b");
        Assert.assertNotNull(escaped);
    }
}
`;

export interface PlantedInstance {
  instancesFile: string;
  /** JSONValue.java fixed (gold), buggy (base), and with only the quote fixed (the blind spot). */
  fixed: string;
  buggy: string;
  quoteOnly: string;
  /** With only the slash fixed: the instance's failing test catches it. */
  slashOnly: string;
  /** Gold with its two cases in each other's place: the same behaviour, other bytecode. */
  casesSwapped: string;
}

/** The planted versions of JSONValue.java, from json-simple's own (gold). */
export function plantedTexts(fixed: string): Omit<PlantedInstance, 'instancesFile'> {
  const lineBreak = fixed.includes('\r\n') ? '\r\n' : '\n';
  const quoteCase = switchCase(QUOTE_LINES, lineBreak);
  const slashCase = switchCase(SLASH_LINES, lineBreak);
  if (!fixed.includes(quoteCase) || !fixed.includes(slashCase)) {
    throw new Error(`${ESCAPE} no longer has the quote and slash cases the instance drops`);
  }
  return {
    fixed,
    buggy: fixed.replace(quoteCase, '').replace(slashCase, ''),
    quoteOnly: fixed.replace(slashCase, ''),
    slashOnly: fixed.replace(quoteCase, ''),
    casesSwapped: fixed
      .replace(quoteCase, '\0')
      .replace(slashCase, quoteCase)
      .replace('\0', slashCase),
  };
}

/**
 * Writes the planted instance under `dir` (`instances/`: its snapshot, instance file and S0's
 * validation record) from the fetched json-simple tree; throws unless S0 finds it valid.
 */
export async function writePlantedInstance(dir: string, pristine: string): Promise<void> {
  const snapshot = path.join(dir, 'instances', 'snapshot');
  await mkdir(path.dirname(snapshot), { recursive: true });
  const copied = await runProcess('cp', ['-a', pristine, snapshot], { timeoutMs: 120_000 });
  if (copied.exitCode !== 0) throw new Error(`cannot copy ${pristine}: ${copied.stderr}`);
  // A snapshot is a source tree: the fetched tree's build output holds the fixed class.
  await removeTree(path.join(snapshot, 'target'));
  const { fixed, buggy } = plantedTexts(await readFile(path.join(snapshot, ESCAPE), 'utf8'));
  await writeFile(path.join(snapshot, ESCAPE), buggy);
  const instance: RepairInstance = {
    instance_id: INSTANCE_ID,
    repo: 'fangyidong/json-simple',
    base_commit: 'planted',
    snapshot: 'snapshot',
    patch: patchOf([{ file: ESCAPE, before: buggy, after: fixed }]).diff,
    test_patch: patchOf([{ file: TEST, before: '', after: ESCAPE_TEST }]).diff,
    FAIL_TO_PASS: [QUOTE_TEST],
    PASS_TO_PASS: ['org.json.simple.EscapeTest#testSlash'],
    problem_statement: 'JSONValue.escape leaves quotes and slashes as they are.',
    module: '',
    maven_flags: [],
    origin: { kind: 'swe-bench' },
  };
  const instancesFile = path.join(dir, 'instances', 'instances.jsonl');
  await writeFile(instancesFile, `${JSON.stringify(instance)}\n`);
  const validated = await cli(['instances', 'validate', instancesFile, '--json']);
  if (validated.exitCode !== 0) {
    throw new Error(`the planted instance is not valid: ${validated.stdout}${validated.stderr}`);
  }
}
