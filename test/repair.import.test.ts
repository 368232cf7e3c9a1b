import { cp } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../src/core/fs.js';
import { readInstanceFile } from '../src/repair/read.js';
import type { ValidationSummary } from '../src/stages/7-strengthen/validate-file.js';
import { cli } from './helpers.js';

/*
 * Instances from other layouts: a record in Multi-SWE-bench's field layout and a Defects4J-shaped
 * project folder are imported by the CLI and hold under S0 with Maven (gold fixes what the
 * FAIL_TO_PASS tests expose, and nothing else breaks).
 */

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'repair');

describe('instances import', () => {
  it('reads a Multi-SWE-bench record and a Defects4J bug into instances S0 finds valid', async () => {
    const work = await makeTempDir('repair-import-test');
    await cp(path.join(FIXTURES, 'multi-swe-bench', 'snapshot'), path.join(work, 'msb-tree'), {
      recursive: true,
    });
    await cp(path.join(FIXTURES, 'defects4j', 'snapshots'), path.join(work, 'd4j-trees'), {
      recursive: true,
    });
    const msb = path.join(work, 'msb', 'instances.jsonl');
    const d4j = path.join(work, 'd4j', 'instances.jsonl');
    const imports = [
      [
        path.join(FIXTURES, 'multi-swe-bench', 'fasterxml__jackson-core_dataset.jsonl'),
        '--format',
        'multi-swe-bench',
        '--snapshots',
        path.join(work, 'msb-tree'),
        '--out',
        msb,
      ],
      [
        path.join(FIXTURES, 'defects4j', 'Csv-like'),
        '--format',
        'defects4j',
        '--bug',
        '1',
        '--snapshots',
        path.join(work, 'd4j-trees'),
        '--out',
        d4j,
      ],
    ];
    for (const args of imports) {
      const imported = await cli(['instances', 'import', ...args]);
      expect(imported.exitCode, imported.stderr).toBe(0);
    }
    const [multi] = await readInstanceFile(msb);
    expect(multi).toMatchObject({
      instance_id: 'fasterxml__jackson-core-1016',
      snapshot: '../msb-tree',
      origin: { kind: 'multi-swe-bench', org: 'fasterxml', number: 1016 },
    });
    const [bug] = await readInstanceFile(d4j);
    expect(bug).toMatchObject({
      instance_id: 'Csv-like-1',
      test_patch: '',
      FAIL_TO_PASS: ['org.apache.commons.csv.CSVParserTest#testGetLineNumberWithCR'],
      origin: { kind: 'defects4j', project: 'Csv-like', bug: 1 },
    });
    for (const file of [msb, d4j]) {
      const validated = await cli(['instances', 'validate', file, '--json']);
      expect(validated.exitCode, validated.stderr).toBe(0);
      const summary = JSON.parse(validated.stdout) as ValidationSummary;
      expect(summary.outcomes.map((outcome) => outcome.kind)).toEqual(['Valid']);
    }
  });
});
