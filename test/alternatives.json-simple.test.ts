import path from 'node:path';
import { parsePatch } from 'diff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { makeTempDir, removeTree } from '../src/core/fs.js';
import { pristineState } from '../src/project/project.js';
import { stateFiles, treeReader, withPatch } from '../src/project/state.js';
import { WorkingCopy } from '../src/project/working-copy.js';
import { patchFromDiff, resolveInstance, type RepairSubject } from '../src/repair/project.js';
import { readInstanceFile } from '../src/repair/read.js';
import { mavenTestRunner } from '../src/runners/maven.js';
import { timeLimit } from '../src/runners/time-limits.js';
import type { TestRunner } from '../src/runners/types.js';
import { withTimeLimit } from '../src/runners/wrappers.js';
import { behaviourPreservingOperators } from '../src/stages/3-transform/operators/index.js';
import { rareInputPathConditioning } from '../src/stages/3-transform/operators/rare-gate.js';
import { goldAlternatives } from '../src/stages/7-strengthen/alternatives.js';
import { mavenToolchain } from '../src/toolchains/maven/maven.js';
import { cli } from './helpers.js';
import { sharedOneCaseBench } from './shared-fixture.js';

/*
 * Correct alternatives of gold on a json-simple case exported as a repair instance: gold
 * rewritten by the behaviour-preserving operators, each checked by the instance's tests in Maven.
 */

const cache = cacheLayout(resolveCacheDir());
const SEED = 11;
let work: string;
let subject: RepairSubject;
let copy: WorkingCopy;
let maven: TestRunner;

beforeAll(async () => {
  work = await makeTempDir('alternatives-test');
  const { bench } = await sharedOneCaseBench(work);
  const out = path.join(work, 'repair');
  const exported = await cli(['case', 'export', bench, '--as', 'repair', '--out', out, '--json']);
  expect(exported.exitCode, exported.stderr).toBe(0);
  const [instance] = await readInstanceFile(path.join(out, 'instances.jsonl'));
  subject = await resolveInstance(instance!, out, cache);
  copy = await WorkingCopy.create(
    subject.project.root,
    pristineState(subject.project),
    subject.project.layout,
    'alternatives-test',
  );
  maven = withTimeLimit(mavenTestRunner(mavenToolchain, cache), () =>
    timeLimit('maven', 'run', undefined),
  );
});

afterAll(async () => {
  await maven?.close();
  await copy?.close();
  await removeTree(work);
});

describe('goldAlternatives', () => {
  it('rewrites gold with behaviour-preserving operators into fixes the instance tests accept', async () => {
    const found = await goldAlternatives(subject, { cache, copy, maven, seed: SEED });
    const { alternatives, losses } = found;
    expect(alternatives.length).toBeGreaterThan(0);
    // Every operator is accounted for once: an alternative or a loss.
    expect([...alternatives, ...losses].map((entry) => entry.operator).sort()).toEqual(
      behaviourPreservingOperators()
        .map((operator) => operator.id)
        .sort(),
    );
    expect(new Set(alternatives.map((entry) => entry.patch)).size).toBe(alternatives.length);

    const root = subject.project.root;
    const goldTree = await stateFiles(subject.gold, treeReader(root));
    for (const alternative of alternatives) {
      expect(alternative.operator).not.toBe(rareInputPathConditioning.id);
      const files = parsePatch(alternative.patch).map((filePatch) =>
        (filePatch.newFileName ?? '').replace(/^b\//, ''),
      );
      for (const file of files) {
        expect(file.startsWith(`${subject.project.layout.mainSources}/`), file).toBe(true);
        expect(file.endsWith('.java'), file).toBe(true);
      }
      // The patch applies to the base and makes a fixed tree other than gold's.
      const tree = await stateFiles(
        withPatch(subject.base, patchFromDiff(alternative.patch)),
        treeReader(root),
      );
      expect(tree).not.toEqual(goldTree);
    }

    const again = await goldAlternatives(subject, { cache, copy, maven, seed: SEED });
    expect(again).toEqual(found);
  });
});
