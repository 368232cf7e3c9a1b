import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exists, makeTempDir, removeTree } from '../src/core/fs.js';
import { defaultDefects4JDir } from '../src/realism/patches.js';
import type { RealismReport } from '../src/realism/realism.js';
import { cli } from './helpers.js';

/*
 * `witnessgym realism` as a user runs it, on a small benchmark written here (three bugs, one of
 * them at two depths, each case's patch extracting a helper as Helper Call Insertion does) against
 * the team's Defects4J data: the report, the blind files, both controls, and the usage mistakes.
 */

const DEFECTS4J = defaultDefects4JDir();

function javaClass(body: string[]): string {
  return ['package p;', '', 'class Parser {', ...body, '}', ''].join('\n');
}

const CLEAN = javaClass([
  '    int parse(String text, int limit) {',
  '        if (text == null) {',
  '            return 0;',
  '        }',
  '        int count = 0;',
  '        for (int i = 0; i < text.length() && i < limit; i++) {',
  "            count += text.charAt(i) == ',' ? 1 : 0;",
  '        }',
  '        return count;',
  '    }',
]);

function buggy(variant: number, depth: number): string {
  const bound = ['i <= limit', 'i < limit - 1', 'i <= text.length()'][variant]!;
  const loop = [
    '        int count = 0;',
    `        for (int i = 0; i < text.length() && ${bound}; i++) {`,
    "            count += text.charAt(i) == ',' ? 1 : 0;",
    '        }',
    '        return count;',
  ];
  if (depth === 1) {
    return javaClass([
      '    int parse(String text, int limit) {',
      '        if (text == null) {',
      '            return 0;',
      '        }',
      ...loop,
      '    }',
    ]);
  }
  return javaClass([
    '    int parse(String text, int limit) {',
    '        if (text == null) {',
    '            return 0;',
    '        }',
    '        return countSeparators(text, limit);',
    '    }',
    '',
    '    private int countSeparators(String text, int limit) {',
    ...loop,
    '    }',
  ]);
}

async function writeBench(dir: string): Promise<void> {
  const cases = [
    { id: 'demo@1-0000000000000001', injection: 'inj-a', variant: 0, depth: 1 },
    { id: 'demo@1-0000000000000002', injection: 'inj-a', variant: 0, depth: 3 },
    { id: 'demo@1-0000000000000003', injection: 'inj-b', variant: 1, depth: 3 },
    { id: 'demo@1-0000000000000004', injection: 'inj-c', variant: 2, depth: 1 },
  ];
  const lines: string[] = [];
  for (const one of cases) {
    const file = 'src/main/java/p/Parser.java';
    const patch = createTwoFilesPatch(
      `a/${file}`,
      `b/${file}`,
      CLEAN,
      buggy(one.variant, one.depth),
      '',
      '',
      {
        context: 3,
      },
    ).replace(/^=+\n/, '');
    await mkdir(path.join(dir, one.id), { recursive: true });
    await writeFile(
      path.join(dir, one.id, 'case.json'),
      JSON.stringify({ injection: one.injection }),
    );
    lines.push(
      JSON.stringify({
        kind: 'case-index',
        v: 1,
        instance_id: one.id,
        project: 'demo',
        type_id: 'logic_predicate_inversion_in_guard',
        depth: one.depth,
        patch,
      }),
    );
  }
  await writeFile(path.join(dir, 'cases.jsonl'), `${lines.join('\n')}\n`);
}

describe.skipIf(!(await exists(DEFECTS4J)))(
  `witnessgym realism (Defects4J data at ${DEFECTS4J})`,
  () => {
    let work: string;
    let bench: string;
    beforeAll(async () => {
      work = await makeTempDir('realism-cli');
      bench = path.join(work, 'bench');
      await mkdir(bench);
      await writeBench(bench);
    });
    afterAll(async () => {
      await removeTree(work);
    });

    it('reports the discriminator, both controls and no judge, and writes the pairs blind', async () => {
      const result = await cli([
        'realism',
        bench,
        '--defects4j',
        DEFECTS4J,
        '--resamples',
        '2000',
        '--json',
      ]);
      expect(result.stderr).not.toMatch(/Error|at .*\.js:/);
      expect(result.exitCode).toBe(0);
      const report = result.json as RealismReport;
      expect(report).toMatchObject({ kind: 'realism-report', schemaVersion: 1 });
      expect(report.sample).toMatchObject({ injected: 4, injections: 3, realAvailable: 864 });
      expect(report.sample.byDepth).toEqual([
        { depth: 1, cases: 2 },
        { depth: 3, cases: 2 },
      ]);
      expect(report.discriminator.overall).toMatchObject({ positives: 4, negatives: 4 });
      expect(report.discriminator.byDepth.map((row) => row.depth)).toEqual([1, 3]);
      expect(report.discriminator.byFamily.map((row) => row.family)).toEqual([
        'shape',
        'edit-kinds',
        'artefacts',
        'ngrams',
      ]);
      expect(report.discriminator.topWeights.length).toBeGreaterThan(0);
      expect(report.discriminator.controls.positive.kind).toBe('Passed');
      expect(report.discriminator.controls.negative.kind).toBe('Passed');
      expect(report.judge.kind).toBe('NotRun');

      const out = path.join(bench, 'realism');
      expect(JSON.parse(await readFile(path.join(out, 'report.json'), 'utf8'))).toEqual(report);
      const pairs = (await readFile(path.join(out, 'pairs.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, string>);
      expect(pairs).toHaveLength(4);
      const patches = await readdir(path.join(out, 'patches'));
      for (const pair of pairs) {
        expect(Object.keys(pair).sort()).toEqual(['left', 'pair', 'right']);
        expect(patches).toContain(`${pair.left}.diff`);
        expect(patches).toContain(`${pair.right}.diff`);
      }
      // Neither side's file tells its source: same header form, no paths, no git index lines.
      for (const name of patches) {
        const text = await readFile(path.join(out, 'patches', name), 'utf8');
        expect(text).toMatch(/^--- (a\/[^/\n]+\.java|\/dev\/null)\n\+\+\+ /);
        expect(text).not.toMatch(/^(diff --git|index )|src\/main|\r/m);
        expect(text).not.toMatch(/^@@ .* @@ ./m);
      }
      const human = await cli([
        'realism',
        bench,
        '--defects4j',
        DEFECTS4J,
        '--resamples',
        '500',
        '--out',
        path.join(work, 'human'),
      ]);
      expect(human.exitCode).toBe(0);
      expect(human.stdout).toMatch(/all features +4\/4/);
      expect(human.stdout).toMatch(/Judge: not run/);
    }, 600_000);

    it('says in one line what is wrong: no cases, no Defects4J data', async () => {
      const empty = path.join(work, 'empty');
      await mkdir(empty, { recursive: true });
      await writeFile(path.join(empty, 'cases.jsonl'), '');
      const noCases = await cli(['realism', empty, '--defects4j', DEFECTS4J]);
      expect(noCases.exitCode).toBe(2);
      expect(noCases.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/no cases .* 'witnessgym build'/),
      ]);

      const noData = await cli(['realism', bench, '--defects4j', path.join(work, 'nowhere')]);
      expect(noData.exitCode).toBe(2);
      expect(noData.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /no Defects4J data at .*nowhere: pass --defects4j DIR .* or set WITNESSGYM_DEFECTS4J/,
        ),
      ]);
    });
  },
);
