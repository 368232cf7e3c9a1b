import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../../core/fs.js';
import type { CaseRecord } from '../4-archive/case.js';
import { attemptsGiven, itemOver } from './evaluate.js';
import { fillPlaceholders, loadScript, offlineAgent } from './offline-agents.js';

const record = {
  officialTest: {
    class: 'org.example.csv.ParserTest',
    path: 'src/test/java/org/example/csv/ParserTest.java',
  },
} as unknown as CaseRecord;

describe('scripted agent', () => {
  it('fills the placeholders from the case, leaving other braces alone', () => {
    expect(
      fillPlaceholders(
        'package {testPackage}; class {testClass} { /* {other} */ } // {testPath} in {testSources}',
        record,
        'src/test/java',
      ),
    ).toBe(
      'package org.example.csv; class ParserTest { /* {other} */ } // src/test/java/org/example/csv/ParserTest.java in src/test/java',
    );
  });

  it('reads a script, and refuses a malformed one in one line', async () => {
    const dir = await makeTempDir('script');
    const good = path.join(dir, 'good.json');
    await writeFile(good, JSON.stringify({ attempts: [{ files: { 'a.java': 'x' } }] }));
    expect(await loadScript(good)).toEqual({
      attempts: [{ files: { 'a.java': 'x' }, delete: [], finalText: '' }],
    });
    const bad = path.join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ attempts: [] }));
    await expect(loadScript(bad)).rejects.toThrow(/--script .*bad\.json/);
    await expect(loadScript(path.join(dir, 'missing.json'))).rejects.toThrow(/missing\.json/);
  });
});

describe('attempts of the offline agents', () => {
  const noTest = { diagnosis: { kind: 'NoTest' as const } };

  it('gives existing-tests one attempt, saying why, and the others those asked for', () => {
    const existing = offlineAgent('existing-tests');
    expect(existing.attempts).toMatchObject({
      kind: 'Once',
      reason: expect.stringMatching(/^existing-tests submits the same files on every attempt/),
    });
    expect(itemOver([noTest], attemptsGiven(existing.attempts, 3))).toBe(true);
    for (const name of ['witness', 'none'] as const) {
      const agent = offlineAgent(name);
      expect(attemptsGiven(agent.attempts, 3)).toBe(3);
      expect(itemOver([noTest], attemptsGiven(agent.attempts, 3))).toBe(false);
    }
  });
});
