/**
 * The realism discriminator on benchmarks, side by side: per benchmark, its cases' patches against
 * size-matched Defects4J patches, the out-of-fold AUC overall, per depth and per feature family
 * with its 90 % cluster-bootstrap interval and TOST verdict, both controls, and the features that
 * separate the sides most. Writes nothing into the benchmarks (`witnessgym realism` writes the
 * blind pairs and the report).
 *
 *   npm run bench:realism -- <bench> [<bench2> ...] [--defects4j DIR] [--seed 1] [--resamples 10000]
 *     [--weights 8] [--json]
 *
 * --defects4j defaults to $WITNESSGYM_DEFECTS4J, else ../shared/data/defects4j beside the checkout.
 */
import { parseArgs } from 'node:util';
import { errorMessage } from '../src/core/errors.js';
import { matchBySize } from '../src/realism/match.js';
import {
  defaultDefects4JDir,
  readDefects4JPatches,
  readInjectedPatches,
  type RealismPatch,
} from '../src/realism/patches.js';
import {
  DEFAULT_STUDY,
  matchSummary,
  runDiscriminator,
  type AucResult,
  type DiscriminatorResult,
} from '../src/realism/study.js';
import { formatTable } from './lib/candidates.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    defects4j: { type: 'string' },
    seed: { type: 'string', default: '1' },
    resamples: { type: 'string', default: '10000' },
    weights: { type: 'string', default: '8' },
    json: { type: 'boolean', default: false },
  },
});

const log = (line: string) => process.stderr.write(`${line}\n`);
if (positionals.length === 0) {
  log('realism: name one or more benchmark directories (made by witnessgym build)');
  process.exit(2);
}
const seed = Number(values.seed);
const study = {
  discriminator: { ...DEFAULT_STUDY.discriminator, seed },
  bootstrap: { ...DEFAULT_STUDY.bootstrap, seed, resamples: Number(values.resamples) },
};

let real: RealismPatch[];
try {
  real = await readDefects4JPatches(values.defects4j ?? defaultDefects4JDir());
} catch (error) {
  log(`realism: ${errorMessage(error)}`);
  process.exit(2);
}

interface BenchResult {
  bench: string;
  match: ReturnType<typeof matchSummary>;
  result: DiscriminatorResult;
}

const results: BenchResult[] = [];
for (const bench of positionals) {
  const injected = await readInjectedPatches([bench]);
  const matching = matchBySize(injected, real, seed);
  if (injected.length === 0 || matching.kind !== 'Matched') {
    log(`realism: ${bench}: ${injected.length} cases, nothing to measure`);
    continue;
  }
  const started = performance.now();
  const result = runDiscriminator(matching.pairs, real, study);
  log(
    `realism: ${bench}: ${injected.length} cases in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  results.push({ bench, match: matchSummary(matching.pairs), result });
}

if (values.json) {
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
} else {
  const cells = (label: string, bench: string, result: AucResult) => [
    bench,
    label,
    `${result.positives}/${result.negatives}`,
    result.auc.toFixed(3),
    `${result.ci.low.toFixed(3)}–${result.ci.high.toFixed(3)}`,
    result.equivalence.kind,
  ];
  const rows = results.flatMap(({ bench, result }) => [
    cells('all features', bench, result.overall),
    ...result.byDepth.map((row) => cells(`depth ${row.depth}`, bench, row)),
    ...result.byFamily.map((row) => cells(`${row.family} alone`, bench, row)),
    [
      ...cells('control +', bench, result.controls.positive).slice(0, 5),
      result.controls.positive.kind,
    ],
    [
      ...cells('control −', bench, result.controls.negative).slice(0, 5),
      result.controls.negative.kind,
    ],
  ]);
  process.stdout.write(
    `${formatTable(['bench', 'sample', 'injected/real', 'AUC', '90% CI', 'TOST (0.45, 0.55) / control'], rows)}\n`,
  );
  for (const { bench, match, result } of results) {
    process.stdout.write(
      `\n${bench}: matched mean changed lines ${match.meanChangedLines.injected.toFixed(1)} vs ${match.meanChangedLines.real.toFixed(1)}, hunks ${match.meanHunks.injected.toFixed(2)} vs ${match.meanHunks.real.toFixed(2)}; ${match.sameProject} of ${match.pairs} pairs within the project; real patches grouped ${result.grouping.kind === 'ByProject' ? 'by project' : `by bug (${result.grouping.reason})`}\n` +
        `what separates most (log-odds of injected per SD): ${result.topWeights
          .slice(0, Number(values.weights))
          .map((weight) => `${weight.feature} ${weight.perDeviation.toFixed(2)}`)
          .join('; ')}\n`,
    );
  }
}
const controlsHeld = results.every(
  ({ result }) =>
    result.controls.positive.kind === 'Passed' && result.controls.negative.kind === 'Passed',
);
process.exitCode = controlsHeld ? 0 : 1;
