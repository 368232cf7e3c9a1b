import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { copyProjectTree, makeTempDir } from '../src/core/fs.js';
import { applyEdits, descendants, loadJavaGrammar, withJavaTree } from '../src/lang/java/syntax.js';
import { findRecipe, type Recipe } from '../src/stages/0-corpus/recipe.js';
import { cachedValueAccess } from '../src/stages/3-transform/operators/cached-value.js';
import { callSiteRerouting } from '../src/stages/3-transform/operators/call-reroute.js';
import { helperCallInsertion } from '../src/stages/3-transform/operators/helper-call.js';
import { nestedDataAccess } from '../src/stages/3-transform/operators/nested-access.js';
import { intermediateStatePassing } from '../src/stages/3-transform/operators/state-holder.js';
import type { TransformOperator } from '../src/stages/3-transform/operators/types.js';
import { JvmRunner } from '../src/toolchains/jvm/runner.js';
import { prepareProjectRuntime } from '../src/toolchains/jvm/setup.js';
import { analyzeSource } from '../src/toolchains/jvm/source-model.js';
import { fetchCorpus } from './helpers.js';

/*
 * The operators on every statement of real files: each rewrite they offer compiles, with the
 * parameter, result and exception types (and the callees) javac gave them.
 */

const cache = cacheLayout(resolveCacheDir());
const runner = new JvmRunner(cache);
const FILES = [
  'src/main/java/org/json/simple/JsonArray.java',
  'src/main/java/org/json/simple/Jsoner.java',
  'src/main/java/org/json/simple/parser/JSONParser.java',
];
let copy: string;
let recipe: Recipe;

beforeAll(async () => {
  await loadJavaGrammar();
  copy = path.join(await makeTempDir('operators'), 'project');
  await copyProjectTree(await fetchCorpus('json-simple'), copy);
  recipe = (await findRecipe('json-simple'))!;
});

afterAll(async () => {
  await runner.close();
});

/**
 * How many of the statements of FILES the operator offers a rewrite at, and what did not compile:
 * its first candidate at each, or its first `perSite` (the same rewrite is compiled once).
 */
async function tryEverywhere(operator: TransformOperator, perSite = 1) {
  const runtime = await prepareProjectRuntime(copy, recipe.build, cache);
  let offered = 0;
  let sites = 0;
  const tried = new Set<string>();
  const failures: string[] = [];
  for (const relative of FILES) {
    const file = path.join(copy, relative);
    const source = await readFile(file, 'utf8');
    const outcome = await analyzeSource(
      {
        file,
        classpath: [runtime.classes, ...runtime.classpath],
        release: runtime.release,
        ranges: [[0, source.length]],
      },
      cache,
    );
    if (outcome.kind !== 'analyzed') throw new Error(outcome.reason);
    const foci = withJavaTree(source, (root) =>
      descendants(root, ['if_statement', 'expression_statement', 'return_statement']).map(
        (node) => ({ start: node.startIndex, end: node.endIndex }),
      ),
    );
    for (const focus of foci) {
      sites++;
      const candidates = operator
        .candidates({ source, focus, model: outcome.model })
        .slice(0, perSite);
      if (candidates.length > 0) offered++;
      for (const candidate of candidates) {
        for (const name of candidate.added) expect(name).toMatch(/^[a-z][A-Za-z]+$/);
        const after = applyEdits(source, candidate.edits);
        if (tried.has(after)) continue;
        tried.add(after);
        await writeFile(file, after);
        const compiled = await runner.compile({
          projectDir: copy,
          build: recipe.build,
          sources: [{ path: file, scope: 'main' }],
        });
        if (compiled.kind !== 'Compiled') {
          failures.push(
            `${candidate.description}: ${JSON.stringify(compiled.verdict).slice(0, 300)}`,
          );
        }
      }
    }
    await writeFile(file, source);
  }
  return { sites, offered, compiled: tried.size, failures };
}

describe('transformation operators on json-simple', () => {
  it('Helper Call Insertion: rewrites at most statements, every one compiles', async () => {
    const { sites, offered, failures } = await tryEverywhere(helperCallInsertion);
    expect(failures).toEqual([]);
    expect(offered).toBeGreaterThan(sites / 2);
  });

  it('Call-Site Rerouting: rewrites where calls of the class lead to the bug, every one compiles', async () => {
    const { offered, failures } = await tryEverywhere(callSiteRerouting);
    expect(failures).toEqual([]);
    expect(offered).toBeGreaterThan(10);
  });

  it('Intermediate State Passing: every candidate at every statement compiles', async () => {
    const { offered, failures } = await tryEverywhere(intermediateStatePassing, Infinity);
    expect(failures).toEqual([]);
    expect(offered).toBeGreaterThan(10);
  });

  it('Cached Value Access: every candidate at every statement compiles', async () => {
    const { offered, failures } = await tryEverywhere(cachedValueAccess, Infinity);
    expect(failures).toEqual([]);
    expect(offered).toBeGreaterThan(10);
  });

  it('Nested Data Access: every candidate at every statement compiles', async () => {
    const { sites, offered, failures } = await tryEverywhere(nestedDataAccess, Infinity);
    expect(failures).toEqual([]);
    expect(offered).toBeGreaterThan(sites / 2);
  });
});
