import path from 'node:path';
import { parsePatch } from 'diff';
import { z } from 'zod';
import type { CacheLayout } from '../../core/cache.js';
import { errorMessage } from '../../core/errors.js';
import { sha256Text } from '../../core/fs.js';
import { seededRandom, shuffled } from '../../core/random.js';
import { describeVerdict } from '../../core/verdict.js';
import { applyEdits, loadJavaGrammar } from '../../lang/java/syntax.js';
import { defineRecord, readRecordFile, writeRecordFile } from '../../records/record.js';
import {
  patchOf,
  stateFiles,
  treeReader,
  withPatch,
  type ProjectState,
} from '../../project/state.js';
import type { WorkingCopy } from '../../project/working-copy.js';
import { judgeRepair, type RepairJudgement } from '../../repair/judge.js';
import { modifiedLines } from '../../repair/patch.js';
import { patchFromDiff, withTests, type RepairSubject } from '../../repair/project.js';
import { runInstanceTests } from '../../repair/run.js';
import type { TestRunner } from '../../runners/types.js';
import { prepareProjectRuntime } from '../../toolchains/jvm/setup.js';
import { analyseSource } from '../../toolchains/jvm/source-model.js';
import { lineStarts } from '../3-transform/focus.js';
import { behaviourPreservingOperators } from '../3-transform/operators/index.js';
import type { TransformOperator, TransformSite } from '../3-transform/operators/types.js';
import { ENGINE_VERSION } from './engine-version.js';
import { goldFiles } from './relevant.js';

/*
 * Correct alternatives of gold, SWE-ABS's false-negative guard: gold rewritten by one of the
 * behaviour-preserving transformation operators, kept only when the instance's own tests still
 * resolve it. A new test that fails on such an alternative checks gold's text, not its behaviour.
 */

const GoldAlternativeSchema = z.strictObject({
  /** sha256Text(patch).slice(0,16) */
  id: z.string(),
  /** The transform operator's id. */
  operator: z.string(),
  /** The candidate's one-line description. */
  description: z.string(),
  /** Unified diff base → alternative fixed tree, a/ b/ prefixed like gold; production files only. */
  patch: z.string(),
});
export type GoldAlternative = z.infer<typeof GoldAlternativeSchema>;

const AlternativeLossSchema = z.strictObject({ operator: z.string(), reason: z.string() });
export type AlternativeLoss = z.infer<typeof AlternativeLossSchema>;

/** One focus in a production file of gold as the operators see it, or a file javac could not model. */
type GoldSite =
  | { kind: 'Site'; file: string; site: TransformSite }
  | { kind: 'NotModelled'; file: string; reason: string };

type CandidateCheck = { kind: 'Correct' } | { kind: 'Rejected'; reason: string };

type OperatorOutcome =
  { kind: 'Found'; alternative: GoldAlternative } | { kind: 'Lost'; reason: string };

/**
 * The foci of gold's lines in `source`: each run of consecutive `lines` (1-based) as a UTF-16
 * range without leading indentation and trailing blanks, as a bug's focus is. Runs apart are
 * separate foci: one range over gold's additions and a deletion further down (a helper it
 * removes) would cross member boundaries, where no operator finds a site. Blank runs and lines
 * past the end give none.
 */
export function focusRegions(
  source: string,
  lines: readonly number[],
): { start: number; end: number }[] {
  const texts = source.split('\n');
  const starts = lineStarts(texts);
  const runs: { first: number; last: number }[] = [];
  for (const line of [...new Set(lines)].sort((a, b) => a - b)) {
    if (line < 1 || line > texts.length) continue;
    const run = runs.at(-1);
    if (run && line === run.last + 1) run.last = line;
    else runs.push({ first: line, last: line });
  }
  return runs.flatMap(({ first, last }) => {
    const firstText = texts[first - 1]!;
    const start = starts[first - 1]! + firstText.length - firstText.trimStart().length;
    let end = starts[last - 1]! + texts[last - 1]!.length;
    while (end > start && /\s/.test(source[end - 1]!)) end--;
    return end > start ? [{ start, end }] : [];
  });
}

/** Reads a file as it stands in `state` ('' when the state has none) without a checkout. */
async function stateReader(
  state: ProjectState,
  root: string,
): Promise<(file: string) => Promise<string>> {
  const readRoot = treeReader(root);
  const files = await stateFiles(state, readRoot);
  return async (file) => (files.has(file) ? (files.get(file) ?? '') : readRoot(file));
}

/** Every project-relative file gold's patch names, either side, sorted. */
function filesGoldChanges(goldPatch: string): string[] {
  const names = parsePatch(goldPatch).flatMap((filePatch) =>
    [filePatch.oldFileName, filePatch.newFileName].filter(
      (name): name is string => name !== undefined && name !== '/dev/null',
    ),
  );
  return [...new Set(names.map((name) => name.replace(/^[ab]\//, '')))].sort();
}

/** A site per focus of gold's changed lines in its production Java files, with javac's model. */
async function goldSites(
  subject: RepairSubject,
  setup: { cache: CacheLayout; copy: WorkingCopy },
): Promise<GoldSite[]> {
  // javac reads the file from the copy, so the copy holds gold while the models are made.
  await setup.copy.checkout(withTests(subject, subject.gold));
  const readGold = await stateReader(subject.gold, subject.project.root);
  const runtime = await prepareProjectRuntime(
    subject.project.root,
    subject.project.build,
    setup.cache,
  );
  const sites: GoldSite[] = [];
  for (const file of goldFiles(subject)) {
    const source = await readGold(file);
    const { changed, anchors } = modifiedLines(subject.instance.patch, file);
    const foci = focusRegions(source, [...changed, ...anchors]);
    if (foci.length === 0) continue;
    const analysed = await analyseSource(
      {
        file: path.join(setup.copy.root, file),
        classpath: [runtime.classes, ...runtime.classpath],
        release: runtime.release,
        ranges: [[0, source.length]],
      },
      setup.cache,
    );
    if (analysed.kind === 'Failed') {
      sites.push({ kind: 'NotModelled', file, reason: analysed.reason });
      continue;
    }
    for (const focus of foci) {
      sites.push({ kind: 'Site', file, site: { source, focus, model: analysed.model } });
    }
  }
  return sites;
}

function describeJudgement(judgement: Extract<RepairJudgement, { kind: 'Unresolved' }>): string {
  return [
    ...judgement.stillFailing.map((test) => `${test} still fails`),
    ...judgement.broken.map((test) => `${test} breaks`),
    ...judgement.notJudged.map((entry) => `${entry.test} not judged (${entry.reason})`),
  ].join('; ');
}

/** Whether the instance's tests, in one Maven run each, resolve the base tree with `patch`. */
async function checkAlternative(
  subject: RepairSubject,
  patch: string,
  setup: { copy: WorkingCopy; maven: TestRunner },
): Promise<CandidateCheck> {
  // The recorded patch itself is what is checked, applied to the base as any patch would be.
  const state = withTests(subject, withPatch(subject.base, patchFromDiff(patch)));
  const ran = await runInstanceTests(subject, state, {
    runner: setup.maven,
    copy: setup.copy,
    runs: 1,
  });
  if (ran.kind === 'CompileFailed') {
    return { kind: 'Rejected', reason: `does not compile: ${describeVerdict(ran.verdict)}` };
  }
  const judgement = judgeRepair(subject.instance, ran.classes);
  return judgement.kind === 'Resolved'
    ? { kind: 'Correct' }
    : { kind: 'Rejected', reason: `the instance tests reject it: ${describeJudgement(judgement)}` };
}

/**
 * Gold's correct alternatives: for each behaviour-preserving operator, in an order drawn from
 * `seed`, the first of its rewrites around gold's changed lines whose patch, on the base with
 * the instance's tests, resolves the instance in Maven; a loss saying why for each other one.
 * Leaves `copy` at the last state it checked.
 */
export async function goldAlternatives(
  subject: RepairSubject,
  options: {
    cache: CacheLayout;
    copy: WorkingCopy;
    maven: TestRunner;
    seed: number;
    /** Candidates tried per operator before giving up (default 2); no-ops and repeats are not tried. */
    perOperator?: number;
  },
): Promise<{ alternatives: GoldAlternative[]; losses: AlternativeLoss[] }> {
  const perOperator = options.perOperator ?? 2;
  // The operators parse synchronously with the grammar loaded here.
  await loadJavaGrammar();
  const sites = await goldSites(subject, options);
  const readBase = await stateReader(subject.base, subject.project.root);
  const readGold = await stateReader(subject.gold, subject.project.root);
  const changedByGold = filesGoldChanges(subject.instance.patch);
  const baseTexts = await Promise.all(changedByGold.map(readBase));
  const goldTexts = await Promise.all(changedByGold.map(readGold));
  // Base → gold with one file rewritten: the other files gold changes keep gold's text.
  const alternativePatch = (rewritten: string, after: string): string =>
    patchOf(
      changedByGold.map((file, index) => ({
        file,
        before: baseTexts[index]!,
        after: file === rewritten ? after : goldTexts[index]!,
      })),
    ).diff;
  const notModelled = sites.flatMap((entry) =>
    entry.kind === 'NotModelled' ? [`${entry.file}: ${entry.reason}`] : [],
  );
  const noSite =
    notModelled.length > 0 ? `no site (not modelled: ${notModelled.join('; ')})` : 'no site';

  const alternatives: GoldAlternative[] = [];
  const losses: AlternativeLoss[] = [];
  /** Why each rewrite the tests were run on was rejected, by its patch. */
  const rejections = new Map<string, string>();

  /** The operator's first candidate the tests accept, of at most `perOperator` tried. */
  async function alternativeBy(operator: TransformOperator): Promise<OperatorOutcome> {
    let tried = 0;
    let lastRejection: string | undefined;
    for (const entry of sites) {
      if (entry.kind === 'NotModelled') continue;
      const { file, site } = entry;
      let candidates: ReturnType<TransformOperator['candidates']>;
      try {
        candidates = operator.candidates(site);
      } catch (error) {
        // An operator that throws on one site loses that site, not the instance.
        lastRejection = `the operator failed on ${file}: ${errorMessage(error)}`;
        continue;
      }
      for (const candidate of candidates) {
        const after = applyEdits(site.source, candidate.edits);
        if (after === site.source) {
          lastRejection = 'its rewrite leaves gold unchanged';
          continue;
        }
        const patch = alternativePatch(file, after);
        // A rewrite already checked (from another focus or operator) is not run again.
        const same = alternatives.find((known) => known.patch === patch);
        if (same) {
          lastRejection = `its rewrite is ${same.operator}'s`;
          continue;
        }
        const rejected = rejections.get(patch);
        if (rejected) {
          lastRejection = rejected;
          continue;
        }
        const check = await checkAlternative(subject, patch, options);
        if (check.kind === 'Correct') {
          return {
            kind: 'Found',
            alternative: {
              id: sha256Text(patch).slice(0, 16),
              operator: operator.id,
              description: candidate.description,
              patch,
            },
          };
        }
        lastRejection = check.reason;
        rejections.set(patch, check.reason);
        if (++tried === perOperator) return { kind: 'Lost', reason: lastRejection };
      }
    }
    return { kind: 'Lost', reason: lastRejection ?? noSite };
  }

  const operators = shuffled(behaviourPreservingOperators(), seededRandom(options.seed));
  for (const operator of operators) {
    const outcome = await alternativeBy(operator);
    if (outcome.kind === 'Found') alternatives.push(outcome.alternative);
    else losses.push({ operator: operator.id, reason: outcome.reason });
  }
  return { alternatives, losses };
}

export const StoredAlternatives = defineRecord({
  kind: 'strengthen-gold-alternatives',
  version: 1,
  schema: z.strictObject({
    key: z.string(),
    alternatives: z.array(GoldAlternativeSchema),
    losses: z.array(AlternativeLossSchema),
  }),
});

/** Where `storedGoldAlternatives` keeps an instance's alternatives, and the key they are kept by. */
export function storedAlternativesFile(
  subject: RepairSubject,
  options: { cache: CacheLayout; seed: number; perOperator?: number },
): { key: string; file: string } {
  const { instance } = subject;
  const key = sha256Text(
    JSON.stringify([
      ENGINE_VERSION,
      options.seed,
      options.perOperator ?? null,
      subject.base.id,
      instance.patch,
      instance.test_patch,
      instance.FAIL_TO_PASS,
      instance.PASS_TO_PASS,
    ]),
  );
  return { key, file: path.join(options.cache.root, 'strengthen-alternatives', `${key}.json`) };
}

/**
 * `goldAlternatives`, kept in the cache under what decides them (the engine's version, the seed,
 * the base tree, gold and the instance's tests): a run of other stages, or into another
 * directory, over the same instances reuses their Maven verdicts instead of redoing them.
 */
export async function storedGoldAlternatives(
  subject: RepairSubject,
  options: Parameters<typeof goldAlternatives>[1],
): Promise<{ alternatives: GoldAlternative[]; losses: AlternativeLoss[] }> {
  const { key, file } = storedAlternativesFile(subject, options);
  const stored = await readRecordFile(file, StoredAlternatives).catch(() => undefined);
  if (stored?.key === key) return { alternatives: stored.alternatives, losses: stored.losses };
  const made = await goldAlternatives(subject, options);
  await writeRecordFile(file, StoredAlternatives, { key, ...made });
  return made;
}

/**
 * A seeded split of the alternatives by operator: the guard half a new test is checked against,
 * and a held-out half that measures whether the guard generalises. Operators are ordered by a
 * hash of seed, instance and operator, so the split is stable for them and independent of the
 * order the alternatives come in.
 */
export function splitAlternatives(
  alternatives: readonly GoldAlternative[],
  instanceId: string,
  seed: number,
): { guard: GoldAlternative[]; heldOut: GoldAlternative[] } {
  const rank = (operator: string) => sha256Text(`${seed}:${instanceId}:${operator}`);
  const operators = [...new Set(alternatives.map((alternative) => alternative.operator))].sort(
    (a, b) => rank(a).localeCompare(rank(b)),
  );
  const guarded = new Set(operators.slice(0, Math.ceil(operators.length / 2)));
  return {
    guard: alternatives.filter((alternative) => guarded.has(alternative.operator)),
    heldOut: alternatives.filter((alternative) => !guarded.has(alternative.operator)),
  };
}
