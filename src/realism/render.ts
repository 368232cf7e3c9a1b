import type { JudgeAucResult, RateResult } from './judge.js';
import type { RealismReport } from './realism.js';
import type { AucResult, ControlResult } from './study.js';

/* The realism report as a person reads it: one table per part, numbers with their intervals. */

const fixed = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(3));
const interval = (ci: { low: number; high: number }) => `${fixed(ci.low)}–${fixed(ci.high)}`;

function table(header: readonly string[], rows: readonly string[][]): string {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join(
    '\n',
  );
}

function aucRow(label: string, result: AucResult): string[] {
  return [
    label,
    `${result.positives}/${result.negatives}`,
    String(result.clusters),
    fixed(result.auc),
    interval(result.ci),
    result.equivalence.kind,
  ];
}

const AUC_HEADER = ['', 'injected/real', 'clusters', 'AUC', '90% CI', 'TOST (0.45, 0.55)'];

function controlRow(label: string, control: ControlResult): string[] {
  return [...aucRow(label, control).slice(0, 5), control.kind];
}

function rateCell(result: RateResult | null): string {
  return result
    ? `${result.correct}/${result.total} = ${fixed(result.accuracy)} (90% CI ${interval(result.ci)}, ${result.equivalence.kind})`
    : 'none judged';
}

function judgeAucCell(result: JudgeAucResult | null): string {
  return result
    ? `${fixed(result.auc)} (90% CI ${interval(result.ci)}, ${result.equivalence.kind})`
    : 'none judged';
}

export function renderRealism(report: RealismReport): string {
  const { sample, discriminator: d } = report;
  const matching = sample.matching;
  const parts = [
    `Realism: ${sample.injected} injected ${report.inputs.view === 'bugs' ? 'bugs alone (each injection patch once, depth 0, no transformation)' : 'patches'} (${sample.injections} injections; ${sample.projects.join(', ')}) against ${matching.pairs} size-matched Defects4J patches of ${sample.realAvailable}`,
    `matched: mean changed lines ${matching.meanChangedLines.injected.toFixed(1)} vs ${matching.meanChangedLines.real.toFixed(1)}, hunks ${matching.meanHunks.injected.toFixed(2)} vs ${matching.meanHunks.real.toFixed(2)}, files ${matching.meanFiles.injected.toFixed(2)} vs ${matching.meanFiles.real.toFixed(2)}; ${matching.sameProject} of ${matching.pairs} from the case's own project`,
    '',
    `Discriminator (L2 logistic regression, out-of-fold; folds grouped by injection and ${d.grouping.kind === 'ByProject' ? 'Defects4J project' : `Defects4J bug: ${d.grouping.reason}`}):`,
    table(AUC_HEADER, [
      aucRow('all features', d.overall),
      ...d.byDepth.map((row) => aucRow(`  depth ${row.depth}`, row)),
      ...d.byFamily.map((row) => aucRow(`${row.family} alone`, row)),
    ]),
    '',
    'Controls:',
    table(
      ['', 'positive/negative', 'clusters', 'AUC', '90% CI', 'verdict'],
      [
        controlRow('positive (planted artefacts)', d.controls.positive),
        controlRow('negative (random labels)', d.controls.negative),
      ],
    ),
    `  positive: ${d.controls.positive.criterion}`,
    `  negative: ${d.controls.negative.criterion}`,
    '',
    'What separates the sides most (log-odds of "injected" per standard deviation):',
    table(
      ['weight', 'family', 'feature'],
      d.topWeights.map((weight) => [weight.perDeviation.toFixed(3), weight.family, weight.feature]),
    ),
    '',
  ];
  const judge = report.judge;
  if (judge.kind === 'NotRun') parts.push(`Judge: not run (${judge.reason}).`);
  else {
    parts.push(
      `Judge ${judge.judge.id} (${judge.judge.spec}): ${judge.obtained} of ${judge.planned} judgements obtained, ${judge.failed} failed`,
      `  single-patch accuracy: ${rateCell(judge.single.accuracy)}`,
      `  single-patch AUC:      ${judgeAucCell(judge.single.auc)}`,
      `  pairwise accuracy:     ${rateCell(judge.pairwise.accuracy)}`,
      `  pairwise AUC:          ${judgeAucCell(judge.pairwise.auc)}`,
      judge.control.kind === 'NotJudged'
        ? `  positive control: not judged (${judge.control.criterion})`
        : `  positive control: ${judge.control.kind}: ${judge.control.accuracy.correct}/${judge.control.accuracy.total} = ${fixed(judge.control.accuracy.accuracy)} (95% CI ${interval(judge.control.accuracy.ci)}; ${judge.control.criterion})`,
    );
  }
  parts.push(
    '',
    `Pairs (blind): ${report.files.pairs}; patches: ${report.files.patches}; key: ${report.files.key}; report: ${report.files.report}`,
    '',
  );
  return parts.join('\n');
}
