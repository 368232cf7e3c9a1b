/**
 * The shape of accepted injections beside real bugs: per project, changed lines, hunks, files and
 * edit kinds of the accepted injections, and of the Defects4J patches of the same project (fixed →
 * buggy, the direction injected patches are shown in). Reads inject output directories, or,
 * without `--inject-out`, runs inject on `--projects` first (as `witnessgym inject` does, into a
 * temporary directory). Prints a table per project and the summary lines of issue 12.
 *
 *   npm run bench:patch-shape -- --defects4j DIR --inject-out DIR [--inject-out DIR2] [--json]
 *   npm run bench:patch-shape -- --defects4j DIR [--projects a,b --types all --count 2]
 *     [--max-tries 60 --seed 1]
 *
 * --defects4j (required) is a directory of Defects4J project data (<Project>/patches/*.src.patch).
 */
import { parseArgs } from 'node:util';
import { exists } from '../src/core/fs.js';
import { plainSink } from '../src/events/render.js';
import type { InjectionRecord } from '../src/stages/2-inject/records.js';
import { DEFECTS4J_PROJECTS } from '../src/realism/patches.js';
import { formatTable } from './lib/candidates.js';
import {
  injectForShape,
  readDefects4J,
  readInjections,
  shapeOfInjection,
  shapeRows,
  siteSpread,
  summariseShapes,
  type ShapedPatch,
  type ShapeSummary,
} from './lib/patch-shape.js';

const { values } = parseArgs({
  options: {
    'inject-out': { type: 'string', multiple: true },
    projects: {
      type: 'string',
      default: 'json-simple,commons-codec,commons-csv,joda-time,jackson-core,commons-lang3',
    },
    types: { type: 'string', default: 'all' },
    count: { type: 'string', default: '2' },
    'max-tries': { type: 'string', default: '60' },
    seed: { type: 'string', default: '1' },
    defects4j: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});

const log = (line: string) => process.stderr.write(`${line}\n`);
if (values.defects4j === undefined) {
  log(
    'patch-shape: --defects4j <dir> is required: a directory of Defects4J data, the reference the injections are shown beside',
  );
  process.exit(2);
}
const defects4jDir = values.defects4j;
const records: InjectionRecord[] = values['inject-out']
  ? await readInjections(values['inject-out'])
  : await injectForShape({
      projects: values.projects.split(','),
      types: values.types,
      count: Number(values.count),
      maxTries: Number(values['max-tries']),
      seed: Number(values.seed),
      events: plainSink(log),
    });
const haveDefects4J = await exists(defects4jDir);
if (!haveDefects4J) log(`no Defects4J data at ${defects4jDir} (--defects4j): no reference`);

interface ProjectShape {
  project: string;
  defects4j: string | null;
  sites: { files: number; methods: number };
  injected: ShapeSummary;
  reference: ShapeSummary | null;
  patches: { injected: ShapedPatch[]; reference: ShapedPatch[] };
}

const names = [...new Set(records.map((record) => record.state.base.name))].sort();
const projects: ProjectShape[] = [];
for (const name of names) {
  const mine = records.filter((record) => record.state.base.name === name);
  const injected = mine.map(shapeOfInjection);
  const defects4j = (haveDefects4J && DEFECTS4J_PROJECTS[name]) || null;
  const reference = defects4j ? await readDefects4J(defects4jDir, defects4j) : [];
  projects.push({
    project: name,
    defects4j,
    sites: siteSpread(mine),
    injected: summariseShapes(injected),
    reference: defects4j ? summariseShapes(reference) : null,
    patches: { injected, reference },
  });
}

const pooled = summariseShapes(projects.flatMap((project) => project.patches.injected));
const references = projects.filter((project) => project.reference !== null);
/** The lowest to the highest value over the Defects4J projects: `44–50%`, or `3` when one. */
const range = (
  pick: (summary: ShapeSummary) => number,
  format: (value: number) => string,
  unit = '',
) => {
  const picked = references.map((project) => pick(project.reference!));
  const low = format(Math.min(...picked));
  const high = format(Math.max(...picked));
  return `${low === high ? low : `${low}–${high}`}${unit}`;
};
const percent = (share: number) => `${Math.round(share * 100)}%`;
const wholePercent = (share: number) => String(Math.round(share * 100));
const oneDecimal = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(1));
const oneTenth = (value: number) => value.toFixed(1);
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
const compared = references.map(
  (project) => `${project.defects4j} ${percent(project.reference!.atMostTwoLines)}`,
);
const summaryLines =
  references.length === 0
    ? [
        `${percent(pooled.atMostTwoLines)} of ${pooled.patches} accepted bugs change ≤ 2 lines (no Defects4J project to compare with)`,
      ]
    : [
        `${percent(pooled.atMostTwoLines)} of accepted bugs change ≤ 2 lines against ` +
          `${range((s) => s.atMostTwoLines, wholePercent, '%')} of Defects4J bugs (${compared.join(', ')})`,
        `injected: median ${oneDecimal(pooled.changedLines.median)} lines, ` +
          `mean ${pooled.hunks.mean.toFixed(1)} hunks, ${percent(pooled.oneHunk)} with 1 hunk; ` +
          `Defects4J: median ${range((s) => s.changedLines.median, oneDecimal)} lines, ` +
          `mean ${range((s) => s.hunks.mean, oneTenth)} hunks, ` +
          `${range((s) => s.oneHunk, wholePercent, '%')} with 1 hunk`,
      ];

if (values.json) {
  process.stdout.write(
    `${JSON.stringify({ projects, injected: pooled, summary: summaryLines }, null, 2)}\n`,
  );
} else {
  for (const project of projects) {
    const summaries = [project.injected, ...(project.reference ? [project.reference] : [])];
    const header = [
      'measure',
      'injected',
      ...(project.defects4j ? [`Defects4J ${project.defects4j}`] : []),
    ];
    const { files, methods } = project.sites;
    const spread = `accepted bugs in ${plural(files, 'file')}, ${plural(methods, 'method')}`;
    process.stdout.write(
      `\n${project.project} (${spread})\n${formatTable(header, shapeRows(summaries))}\n`,
    );
  }
  process.stdout.write(`\n${summaryLines.join('\n')}\n`);
}
