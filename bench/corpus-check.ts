/**
 * The whole check of every corpus recipe, which the test suite only samples: each project is
 * fetched with its full baseline and must give a pristine one-commit repository with >= 90% of
 * its test classes usable; a second fetch must find everything done and write nothing. Prints
 * what it measured per project; exits 1 if any project falls short.
 *
 *   npm run bench:corpus-check [-- --projects commons-io,joda-time] [--cache-dir DIR]
 *
 * On a fresh cache this downloads and runs every suite: most of an hour on 2 cores.
 */
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { cacheLayout, projectCache, resolveCacheDir } from '../src/core/cache.js';
import { git } from '../src/core/git.js';
import { plainSink } from '../src/events/render.js';
import type { ProgressEvent } from '../src/events/types.js';
import { loadRecipes } from '../src/project/recipe.js';
import { manifestBeside } from '../src/records/manifest.js';
import { fetchCorpusProject } from '../src/stages/0-corpus/fetch.js';
import { mavenToolchain } from '../src/toolchains/maven/maven.js';

const MIN_USABLE_RATIO = 0.9;

const { values } = parseArgs({
  options: {
    projects: { type: 'string' },
    'cache-dir': { type: 'string' },
  },
});
const cache = cacheLayout(resolveCacheDir(values['cache-dir']));
const wanted = values.projects?.split(',');
const recipes = (await loadRecipes()).filter((r) => !wanted || wanted.includes(r.name));
if (wanted && recipes.length !== wanted.length) {
  console.error(`unknown project among ${wanted.join(', ')}`);
  process.exit(2);
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);
const header = ['project', 'fetch s', 'suite s', 'classes', 'usable', 'ratio', 'again', 'verdict'];
const rows: string[][] = [];
let failed = 0;
for (const recipe of recipes) {
  const started = Date.now();
  const fetched = await fetchCorpusProject(recipe, cache, {
    toolchain: mavenToolchain,
    events: plainSink((line) => process.stderr.write(`[${recipe.name}] ${line}\n`)),
  });
  const fetchMs = Date.now() - started;
  const { baseline } = fetched;
  const ratio = baseline.classes.length ? baseline.usableCount / baseline.classes.length : 0;

  const problems: string[] = [];
  if (ratio < MIN_USABLE_RATIO) problems.push(`usable ratio below ${MIN_USABLE_RATIO}`);
  const commits = (await git(fetched.path, ['log', '--format=%H'])).split('\n');
  if (commits.length !== 1 || commits[0] !== fetched.commit) problems.push('not one commit');
  if ((await git(fetched.path, ['status', '--porcelain'])) !== '') problems.push('tree not clean');

  // A second fetch: no step announces itself and no record is written again.
  const paths = projectCache(cache, recipe);
  const records = [paths.fetchRecord, paths.baseline, manifestBeside(paths.baseline), paths.recipe];
  const mtimes = () => Promise.all(records.map(async (file) => (await stat(file)).mtimeMs));
  const before = await mtimes();
  const events: ProgressEvent[] = [];
  const again = await fetchCorpusProject(recipe, cache, {
    toolchain: mavenToolchain,
    events: { emit: (event) => events.push(event) },
  });
  const unchanged = (await mtimes()).every((mtime, index) => mtime === before[index]);
  const idle = events.length === 0 && unchanged && again.commit === fetched.commit;
  if (!idle) problems.push('a second fetch did work');

  if (problems.length > 0) failed++;
  rows.push([
    recipe.name,
    seconds(fetchMs),
    seconds(baseline.suite.durationMs),
    String(baseline.classes.length),
    String(baseline.usableCount),
    ratio.toFixed(3),
    idle ? 'idle' : 'WORKED',
    problems.length === 0 ? 'ok' : `FAIL: ${problems.join('; ')}`,
  ]);
}

const widths = header.map((title, column) =>
  Math.max(title.length, ...rows.map((row) => row[column]!.length)),
);
const line = (cells: string[]) =>
  cells
    .map((cell, column) => cell.padEnd(widths[column]!))
    .join('  ')
    .trimEnd();
console.log(line(header));
for (const row of rows) console.log(line(row));
console.log(`${recipes.length - failed} of ${recipes.length} projects pass`);
process.exit(failed > 0 ? 1 : 0);
