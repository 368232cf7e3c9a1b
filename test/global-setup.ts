import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { makeTempDir, removeTree } from '../src/core/fs.js';
import { cli, fetchCorpus, oneCaseBench } from './helpers.js';
import { writePlantedInstance } from './planted-escape.js';

/*
 * What several json-simple files start from, made once per run instead of once per file:
 * the fetched project, one rules-engine inject run, a one-case benchmark and the planted instance
 * validated by S0, the last three made side by side. Files read these; one that writes takes a
 * copy first (test/shared-fixture.ts).
 */

export interface JsonSimpleFixture {
  /** The fetched pristine tree. */
  pristine: string;
  /** `inject json-simple` of INJECTED_TYPES, 2 each, seed 3. */
  injected: string;
  /** The benchmark `oneCaseBench('json-simple')` builds. */
  oneCase: { bench: string; caseDir: string };
  /** The planted instance's directory (test/planted-escape.ts), validated. */
  planted: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    jsonSimple: JsonSimpleFixture;
  }
}

export const INJECTED_TYPES = 'logic_predicate_inversion_in_guard,npe_intra_method_guard_removed';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The CLI runs below read the cache from the environment, as the test files' runs do.
  const cache = project.config.env.WITNESSGYM_CACHE;
  if (!cache) throw new Error('the integration project sets no WITNESSGYM_CACHE');
  process.env.WITNESSGYM_CACHE = cache;
  const dir = await makeTempDir('json-simple-fixture');
  const started = Date.now();
  const pristine = await fetchCorpus('json-simple');
  const injected = path.join(dir, 'inject');
  const planted = path.join(dir, 'planted');
  const [inject, { bench, caseDir }] = await Promise.all([
    cli([
      'inject',
      'json-simple',
      '--types',
      INJECTED_TYPES,
      '--count',
      '2',
      '--seed',
      '3',
      '--out',
      injected,
      '--json',
    ]),
    oneCaseBench('json-simple', path.join(dir, 'one-case')),
    writePlantedInstance(planted, pristine),
  ]);
  if (inject.exitCode !== 0) throw new Error(`inject json-simple failed: ${inject.stderr}`);
  project.provide('jsonSimple', {
    pristine,
    injected,
    oneCase: { bench, caseDir },
    planted: path.join(planted, 'instances'),
  });
  console.log(`json-simple fixture in ${dir} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return () => removeTree(dir);
}
