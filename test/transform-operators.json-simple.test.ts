import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { copyProjectTree, makeTempDir } from '../src/core/fs.js';
import {
  applyEdits,
  descendants,
  field,
  loadJavaGrammar,
  withJavaTree,
} from '../src/lang/java/syntax.js';
import { findRecipe, type Recipe } from '../src/project/recipe.js';
import { cachedValueAccess } from '../src/stages/3-transform/operators/cached-value.js';
import { patchOf } from '../src/project/state.js';
import { probeStatement } from '../src/stages/3-transform/profile.js';
import { callSiteRerouting } from '../src/stages/3-transform/operators/call-reroute.js';
import { extractApplySplit } from '../src/stages/3-transform/operators/extract-apply.js';
import { helperCallInsertion } from '../src/stages/3-transform/operators/helper-call.js';
import { pipelineStageSplit } from '../src/stages/3-transform/operators/pipeline-split.js';
import { localStateBundling } from '../src/stages/3-transform/operators/local-state-bundle.js';
import { parameterBundling } from '../src/stages/3-transform/operators/parameter-bundle.js';
import { intermediateStatePassing } from '../src/stages/3-transform/operators/state-holder.js';
import type { ProbedKind } from '../src/stages/3-transform/operators/gate-signals.js';
import { rareInputPathConditioning } from '../src/stages/3-transform/operators/rare-gate.js';
import type { TransformOperator } from '../src/stages/3-transform/operators/types.js';
import { JvmRunner } from '../src/toolchains/jvm/runner.js';
import { prepareProjectRuntime } from '../src/toolchains/jvm/setup.js';
import { analyseSource } from '../src/toolchains/jvm/source-model.js';
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
/**
 * Files whose own calls compute their arguments (`escape(String.valueOf(entry.getKey()))`): the
 * files above have none but whole bodies (`return parse(s, (ContainerFactory)null);`).
 */
const ADAPTED_CALL_FILES = [
  'src/main/java/org/json/simple/JSONObject.java',
  'src/main/java/org/json/simple/JSONValue.java',
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
 * How many of the statements of FILES the operator offers a rewrite at, how many rewrites it
 * offers (its first `perSite` at each), and which did not compile (each distinct result is
 * compiled once). Every name a rewrite adds must match `added`.
 */
async function tryEverywhere(
  operator: TransformOperator,
  {
    perSite = 1,
    added = /^[a-z][A-Za-z0-9]+$/,
    files = FILES,
  }: { perSite?: number; added?: RegExp; files?: readonly string[] } = {},
) {
  const runtime = await prepareProjectRuntime(copy, recipe.build, cache);
  let offered = 0;
  let sites = 0;
  let candidates = 0;
  const failures: string[] = [];
  const compiledTexts = new Set<string>();
  for (const relative of files) {
    const file = path.join(copy, relative);
    const source = await readFile(file, 'utf8');
    const outcome = await analyseSource(
      {
        file,
        classpath: [runtime.classes, ...runtime.classpath],
        release: runtime.release,
        ranges: [[0, source.length]],
      },
      cache,
    );
    if (outcome.kind !== 'Analysed') throw new Error(outcome.reason);
    const foci = withJavaTree(source, (root) =>
      descendants(root, ['if_statement', 'expression_statement', 'return_statement']).map(
        (node) => ({ start: node.startIndex, end: node.endIndex }),
      ),
    );
    for (const focus of foci) {
      sites++;
      const offers = operator.candidates({ source, focus, model: outcome.model }).slice(0, perSite);
      if (offers.length === 0) continue;
      offered++;
      for (const candidate of offers) {
        candidates++;
        for (const name of candidate.added) expect(name).toMatch(added);
        const text = applyEdits(source, candidate.edits);
        if (compiledTexts.has(text)) continue;
        compiledTexts.add(text);
        await writeFile(file, text);
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
  return { sites, offered, candidates, failures };
}

/** A failing call's and another call's probe tokens for a value (gate-signals.ts reads them). */
const TOKENS: Record<ProbedKind, [string, string]> = {
  integral: ['3', '0'],
  char: ['97', '98'],
  boolean: ['true', 'false'],
  string: ['3:abc', '~'],
  array: ['3', '0'],
  size: ['3', '~'],
  length: ['2', '5'],
  reference: ['!', '~'],
};

/**
 * Rare Input Path Conditioning at every statement, as if the bug were there (an `if`'s condition
 * negated, or a statement deleted before the others): the probe state and the gated state both
 * compile.
 */
async function gateEverywhere() {
  const runtime = await prepareProjectRuntime(copy, recipe.build, cache);
  let gated = 0;
  let sites = 0;
  const failures: string[] = [];
  const compiles = async (file: string, text: string) => {
    await writeFile(file, text);
    const compiled = await runner.compile({
      projectDir: copy,
      build: recipe.build,
      sources: [{ path: file, scope: 'main' }],
    });
    return compiled.kind === 'Compiled'
      ? undefined
      : JSON.stringify(compiled.verdict).slice(0, 300);
  };
  for (const relative of FILES) {
    const file = path.join(copy, relative);
    const source = await readFile(file, 'utf8');
    const outcome = await analyseSource(
      {
        file,
        classpath: [runtime.classes, ...runtime.classpath],
        release: runtime.release,
        ranges: [[0, source.length]],
      },
      cache,
    );
    if (outcome.kind !== 'Analysed') throw new Error(outcome.reason);
    // The bug as the operator meets it: an `if`'s condition negated, or a statement deleted
    // before any other statement (the gate has no site where the bug changed neither).
    const foci = withJavaTree(source, (root) =>
      descendants(root, ['if_statement', 'expression_statement', 'return_statement']).map(
        (node) => {
          const lineEnd = source.indexOf('\n', node.startIndex);
          const lineStart = source.lastIndexOf('\n', node.startIndex) + 1;
          const condition = node.type === 'if_statement' ? field(node, 'condition') : null;
          const clean = condition
            ? `${source.slice(0, condition.startIndex)}(!${condition.text})${source.slice(condition.endIndex)}`
            : `${source.slice(0, lineStart)}${source.slice(lineStart, node.startIndex)}System.out.flush();\n${source.slice(lineStart)}`;
          return { focus: { start: node.startIndex, end: lineEnd }, clean };
        },
      ),
    );
    for (const { focus, clean } of foci) {
      sites++;
      const bug = patchOf([{ file: relative, before: clean, after: source }]).diff;
      const site = { source, focus, model: outcome.model, bug };
      const plan = rareInputPathConditioning.probe!(site);
      if (!plan) continue;
      const probed = applyEdits(source, [
        { start: plan.at, end: plan.at, text: probeStatement(plan, '/tmp/probe.tsv', '\n') },
      ]);
      const probeError = await compiles(file, probed);
      if (probeError) failures.push(`probe at ${plan.at}: ${probeError}`);
      const observations = [0, 1].map((which) => ({
        failingMethod: which === 0 ? 'testFails' : null,
        values: plan.values.map((value) => TOKENS[value.kind][which]!),
        count: 1,
      }));
      const [candidate] = rareInputPathConditioning.candidates({
        ...site,
        profile: { at: plan.at, values: plan.values, observations },
      });
      if (!candidate) continue;
      gated++;
      const gateError = await compiles(file, applyEdits(source, candidate.edits));
      if (gateError) failures.push(`${candidate.description}: ${gateError}`);
    }
    await writeFile(file, source);
  }
  return { sites, gated, failures };
}

// Each test compiles every candidate of an operator: 10–20 s alone, but this file runs beside the
// Maven builds (the medium tier), where a loaded machine took over two minutes for one.
describe('transformation operators on json-simple', { timeout: 600_000 }, () => {
  it('Rare Input Path Conditioning: its probe and its gate compile wherever it gates', async () => {
    const { sites, gated, failures } = await gateEverywhere();
    expect(failures).toEqual([]);
    expect(gated).toBeGreaterThan(sites / 3);
  });

  it('Helper Call Insertion: rewrites at most statements, every one compiles', async () => {
    const { sites, offered, failures } = await tryEverywhere(helperCallInsertion);
    expect(failures).toEqual([]);
    expect(offered).toBeGreaterThan(sites / 2);
  });

  it('Call-Site Rerouting: rewrites where calls of the class lead to the bug, every one compiles', async () => {
    const { offered, failures } = await tryEverywhere(callSiteRerouting, {
      files: [...FILES, ...ADAPTED_CALL_FILES],
    });
    expect(failures).toEqual([]);
    expect(offered).toBeGreaterThan(0);
  });

  it('Extract-and-Apply Split: every candidate at every site compiles', async () => {
    const { offered, candidates, failures } = await tryEverywhere(extractApplySplit, {
      perSite: Infinity,
    });
    expect(failures).toEqual([]);
    expect(offered).toBeGreaterThan(10);
    expect(candidates).toBeGreaterThanOrEqual(offered);
  });

  it('Pipeline Stage Split: every candidate at every site compiles', async () => {
    const { offered, candidates, failures } = await tryEverywhere(pipelineStageSplit, {
      perSite: Infinity,
    });
    expect(failures).toEqual([]);
    expect(offered).toBeGreaterThan(10);
    expect(candidates).toBeGreaterThanOrEqual(offered);
  });

  it('Parameter Bundling: every candidate at every site compiles', async () => {
    const { offered, failures } = await tryEverywhere(parameterBundling, {
      perSite: Infinity,
      added: /^([a-z][A-Za-z]+|[A-Z][A-Za-z]+)$/,
    });
    expect(failures).toEqual([]);
    expect(offered).toBeGreaterThan(10);
  });

  it('Intermediate State Passing: every candidate at every statement compiles', async () => {
    const { offered, failures } = await tryEverywhere(intermediateStatePassing, {
      perSite: Infinity,
    });
    expect(failures).toEqual([]);
    expect(offered).toBeGreaterThan(10);
  });

  it('Local State Bundling: every candidate at every site compiles', async () => {
    const { offered, failures } = await tryEverywhere(localStateBundling, {
      perSite: Infinity,
      added: /^[A-Z][A-Za-z]+$/,
    });
    expect(failures).toEqual([]);
    expect(offered).toBeGreaterThan(10);
  });

  it('Cached Value Access: every candidate at every statement compiles', async () => {
    const { offered, failures } = await tryEverywhere(cachedValueAccess, { perSite: Infinity });
    expect(failures).toEqual([]);
    expect(offered).toBeGreaterThan(10);
  });
});
