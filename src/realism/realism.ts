import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AgentAdapter } from '../agents/types.js';
import { UserError } from '../core/errors.js';
import { removeTree, sha256Text, writeFileAtomic } from '../core/fs.js';
import { packageVersion } from '../core/package-root.js';
import { seededRandom, shuffled } from '../core/random.js';
import { plantArtefacts } from './controls.js';
import {
  runJudge,
  type BlindPair,
  type BlindPatch,
  type JudgeResult,
  type JudgeRunOptions,
} from './judge.js';
import { matchBySize, type MatchedPair } from './match.js';
import {
  CONTEXT_LINES,
  readDefects4JPatches,
  readInjectedPatches,
  type InjectedView,
  type RealismPatch,
} from './patches.js';
import {
  matchSummary,
  runDiscriminator,
  type DiscriminatorResult,
  type StudySettings,
} from './study.js';
import { EQUIVALENCE_BOUNDS } from './stats.js';

/*
 * `witnessgym realism`: read the benchmarks' cases and the Defects4J patches, match them by size,
 * write the pairs blind, run the discriminator and its controls, and the LLM judge when asked.
 *
 *   <out>/report.json         the report (kind realism-report, schemaVersion)
 *   <out>/pairs.jsonl         the matched pairs by blind ids only, each in a seeded orientation
 *   <out>/patches/<id>.diff   every patch of a pair as a reviewer sees it
 *   <out>/key.jsonl           which blind id is which (read it after judging, not before)
 *   <out>/realism.sqlite      one row per judgement, with --judge
 *   <out>/control-pairs.jsonl the judge's positive-control pairs (their planted patches in
 *                             patches/, which is which in control-key.jsonl), with --judge
 */

export const REALISM_SCHEMA_VERSION = 1;

/** Pairs of the judge's positive control, as many as the paper's. */
export const JUDGE_CONTROL_PAIRS = 100;

export interface JudgeRequest {
  adapter: AgentAdapter;
  timeoutMs: number;
  /** At most this many pairs are judged (a seeded draw); all when undefined. */
  maxPairs?: number;
  /** The sandbox a process judge runs in (see JudgeRunOptions). */
  confined?: JudgeRunOptions['confined'];
}

export interface RealismOptions {
  benches: readonly string[];
  /** Each case's whole patch, or each bug's injection alone (depth 0). */
  view: InjectedView;
  defects4j: string;
  out: string;
  seed: number;
  study: StudySettings;
  judge?: JudgeRequest;
  log: (line: string) => void;
}

export type JudgeSection = { kind: 'NotRun'; reason: string } | JudgeResult;

export interface RealismReport {
  kind: 'realism-report';
  schemaVersion: number;
  witnessgym: string;
  inputs: {
    benches: string[];
    view: InjectedView;
    defects4j: string;
    seed: number;
    folds: number;
    lambda: number;
    resamples: number;
    contextLines: number;
    equivalenceBounds: [number, number];
  };
  sample: {
    injected: number;
    realAvailable: number;
    injections: number;
    byDepth: { depth: number; cases: number }[];
    projects: string[];
    matching: ReturnType<typeof matchSummary>;
  };
  discriminator: DiscriminatorResult;
  judge: JudgeSection;
  files: { report: string; pairs: string; patches: string; key: string };
}

function blindId(prefix: string, seed: number, key: string): string {
  return `${prefix}${sha256Text(`${seed}:${key}`).slice(0, 10)}`;
}

function blindPairs(pairs: readonly MatchedPair[], seed: number): BlindPair[] {
  const blind = (patch: RealismPatch): BlindPatch => ({
    blindId: blindId('P', seed, patch.key),
    side: patch.side,
    cluster: patch.cluster,
    text: patch.text,
  });
  return pairs.map((pair) => ({
    pairId: blindId('Q', seed, `${pair.injected.key}|${pair.real.key}`),
    injected: blind(pair.injected),
    real: blind(pair.real),
  }));
}

const jsonLines = (rows: readonly unknown[]) =>
  rows.map((row) => `${JSON.stringify(row)}\n`).join('');

async function writeBlindFiles(
  out: string,
  pairs: readonly MatchedPair[],
  blind: readonly BlindPair[],
  seed: number,
): Promise<void> {
  const random = seededRandom(seed);
  const order = shuffled(
    blind.map((_, index) => index),
    random,
  );
  const patchesDir = path.join(out, 'patches');
  await removeTree(patchesDir);
  await mkdir(patchesDir, { recursive: true });
  const pairRows: unknown[] = [];
  const keyRows: unknown[] = [];
  for (const index of order) {
    const pair = blind[index]!;
    const matched = pairs[index]!;
    const injectedLeft = random() < 0.5;
    const [left, right] = injectedLeft ? [pair.injected, pair.real] : [pair.real, pair.injected];
    pairRows.push({ pair: pair.pairId, left: left.blindId, right: right.blindId });
    for (const [patch, source] of [
      [pair.injected, matched.injected],
      [pair.real, matched.real],
    ] as const) {
      await writeFile(path.join(patchesDir, `${patch.blindId}.diff`), patch.text);
      keyRows.push({
        patch: patch.blindId,
        pair: pair.pairId,
        side: source.side,
        source: source.key,
        project: source.project,
        depth: source.depth,
        bugType: source.bugType,
      });
    }
  }
  await writeFileAtomic(path.join(out, 'pairs.jsonl'), jsonLines(pairRows));
  await writeFileAtomic(path.join(out, 'key.jsonl'), jsonLines(keyRows));
}

/** The judge's control pairs beside the study's: their planted patches and their key. */
async function writeControlFiles(
  out: string,
  controls: readonly MatchedPair[],
  blind: readonly BlindPair[],
): Promise<void> {
  const keyRows: unknown[] = [];
  for (const [index, pair] of blind.entries()) {
    await writeFile(path.join(out, 'patches', `${pair.injected.blindId}.diff`), pair.injected.text);
    keyRows.push({
      patch: pair.injected.blindId,
      pair: pair.pairId,
      side: 'injected',
      source: controls[index]!.injected.key,
      control: true,
    });
  }
  await writeFileAtomic(
    path.join(out, 'control-pairs.jsonl'),
    jsonLines(
      blind.map((pair) => ({
        pair: pair.pairId,
        injected: pair.injected.blindId,
        real: pair.real.blindId,
      })),
    ),
  );
  await writeFileAtomic(path.join(out, 'control-key.jsonl'), jsonLines(keyRows));
}

export async function runRealism(options: RealismOptions): Promise<RealismReport> {
  const injected = await readInjectedPatches(options.benches, options.view);
  if (injected.length === 0) {
    throw new UserError(
      `no cases with a Java patch in ${options.benches.join(', ')}: build some with 'witnessgym build'`,
    );
  }
  const real = await readDefects4JPatches(options.defects4j);
  const matching = matchBySize(injected, real, options.seed);
  if (matching.kind === 'TooFewReal') {
    throw new UserError(
      `${matching.injected} injected patches but only ${matching.real} Defects4J patches to match them with: pass fewer benchmarks`,
    );
  }
  const { pairs } = matching;
  options.log(
    `realism: ${pairs.length} injected patches matched with Defects4J patches; running the discriminator and its controls`,
  );
  const discriminator = runDiscriminator(pairs, real, options.study);

  await mkdir(options.out, { recursive: true });
  const blind = blindPairs(pairs, options.seed);
  await writeBlindFiles(options.out, pairs, blind, options.seed);

  let judge: JudgeSection = {
    kind: 'NotRun',
    reason: 'no --judge was given: no LLM judgement was made',
  };
  if (options.judge) {
    const random = seededRandom(options.seed);
    const order = shuffled(
      pairs.map((_, index) => index),
      random,
    );
    const judged =
      options.judge.maxPairs === undefined ? order : order.slice(0, options.judge.maxPairs);
    // The paper's positive control: up to 100 of the judged pairs with artefacts planted in the
    // injected patch, judged pairwise beside the study.
    const controls = judged.slice(0, JUDGE_CONTROL_PAIRS).map((index) => ({
      ...pairs[index]!,
      injected: plantArtefacts(pairs[index]!.injected, random),
    }));
    const controlPairs = blindPairs(controls, options.seed);
    await writeControlFiles(options.out, controls, controlPairs);
    judge = await runJudge({
      adapter: options.judge.adapter,
      pairs: judged.map((index) => blind[index]!),
      controlPairs,
      out: options.out,
      seed: options.seed,
      timeoutMs: options.judge.timeoutMs,
      bootstrap: options.study.bootstrap,
      log: options.log,
      ...(options.judge.confined ? { confined: options.judge.confined } : {}),
    });
  }

  const depths = [...new Set(injected.map((patch) => patch.depth ?? 0))].sort((a, b) => a - b);
  const report: RealismReport = {
    kind: 'realism-report',
    schemaVersion: REALISM_SCHEMA_VERSION,
    witnessgym: packageVersion(),
    inputs: {
      benches: options.benches.map((bench) => path.resolve(bench)),
      view: options.view,
      defects4j: path.resolve(options.defects4j),
      seed: options.seed,
      folds: options.study.discriminator.folds,
      lambda: options.study.discriminator.lambda,
      resamples: options.study.bootstrap.resamples,
      contextLines: CONTEXT_LINES,
      equivalenceBounds: [EQUIVALENCE_BOUNDS.low, EQUIVALENCE_BOUNDS.high],
    },
    sample: {
      injected: injected.length,
      realAvailable: real.length,
      injections: new Set(injected.map((patch) => patch.cluster)).size,
      byDepth: depths.map((depth) => ({
        depth,
        cases: injected.filter((patch) => (patch.depth ?? 0) === depth).length,
      })),
      projects: [...new Set(injected.map((patch) => patch.project))].sort(),
      matching: matchSummary(pairs),
    },
    discriminator,
    judge,
    files: {
      report: path.join(options.out, 'report.json'),
      pairs: path.join(options.out, 'pairs.jsonl'),
      patches: path.join(options.out, 'patches'),
      key: path.join(options.out, 'key.jsonl'),
    },
  };
  await writeFileAtomic(report.files.report, `${JSON.stringify(report, null, 2)}\n`);
  return report;
}
