/**
 * Throughput of the rules engine: per corpus project and bug type, candidates are tried in seeded
 * order until `--count` are accepted (or `--max-tries` run out), validated with the fast runner
 * only (3 of 3 failing runs, reach check; no Maven confirmation, no collateral reruns). Prints the
 * acceptance rate and accepted injections per minute per type and overall.
 *
 *   npm run bench:inject-throughput [-- --projects a,b --types all --count 3 --max-tries 30 --seed 1]
 */
import { parseArgs } from 'node:util';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { makeTempDir, removeTree } from '../src/core/fs.js';
import { resolveFetchedProject } from '../src/project/project.js';
import { witnessContexts } from '../src/stages/2-inject/contexts.js';
import { injectWithRules } from '../src/stages/2-inject/inject.js';
import type { TypeSummary } from '../src/stages/2-inject/records.js';
import { loadBugTypeSpecs, selectBugTypes } from '../src/stages/2-inject/spec.js';
import { mavenToolchain } from '../src/toolchains/maven/maven.js';
import { plainSink } from '../src/events/render.js';
import { formatTable } from './lib/candidates.js';

const { values } = parseArgs({
  options: {
    projects: {
      type: 'string',
      default: 'json-simple,commons-codec,commons-csv,joda-time,jackson-core,commons-lang3',
    },
    types: { type: 'string', default: 'all' },
    count: { type: 'string', default: '3' },
    'max-tries': { type: 'string', default: '30' },
    seed: { type: 'string', default: '1' },
  },
});
const cache = cacheLayout(resolveCacheDir());
const specs = selectBugTypes(await loadBugTypeSpecs(), values.types);
const totals = new Map<string, { tried: number; accepted: number; ms: number; sites: number }>();
const events = plainSink((line) => process.stderr.write(`${line}\n`));
const add = (type: TypeSummary) => {
  const total = totals.get(type.typeId) ?? { tried: 0, accepted: 0, ms: 0, sites: 0 };
  totals.set(type.typeId, {
    tried: total.tried + type.tried,
    accepted: total.accepted + type.accepted,
    ms: total.ms + type.durationMs,
    sites: total.sites + (type.sitesFound ?? 0),
  });
};
for (const name of values.projects.split(',')) {
  const project = await resolveFetchedProject(name, cache);
  const contexts = await witnessContexts(project, cache, events);
  const out = await makeTempDir('inject-bench');
  try {
    const { summary } = await injectWithRules({
      cache,
      project,
      toolchain: mavenToolchain,
      specs,
      contexts,
      count: Number(values.count),
      maxTries: Number(values['max-tries']),
      seed: Number(values.seed),
      out,
      collateralLimit: 0,
      mavenCheck: false,
      events,
    });
    summary.types.forEach(add);
    process.stdout.write(
      `${project.label}: ${summary.types.map((t) => `${t.typeId} ${t.accepted}/${t.tried}`).join(', ')}\n`,
    );
  } finally {
    await removeTree(out);
  }
}
const rows = [...totals].map(([typeId, t]) => [
  typeId,
  String(t.sites),
  String(t.tried),
  String(t.accepted),
  t.tried === 0 ? '-' : `${((100 * t.accepted) / t.tried).toFixed(0)}%`,
  (t.ms / 1000).toFixed(1),
  t.ms === 0 ? '-' : ((t.accepted * 60_000) / t.ms).toFixed(1),
]);
const all = [...totals.values()].reduce(
  (sum, t) => ({
    tried: sum.tried + t.tried,
    accepted: sum.accepted + t.accepted,
    ms: sum.ms + t.ms,
  }),
  { tried: 0, accepted: 0, ms: 0 },
);
process.stdout.write(
  `${formatTable(['type', 'sites', 'tried', 'accepted', 'rate', 'seconds', 'accepted/min'], rows)}\n` +
    `overall: ${all.accepted} accepted of ${all.tried} tried (${all.tried ? ((100 * all.accepted) / all.tried).toFixed(0) : 0}%), ` +
    `${((all.accepted * 60_000) / Math.max(1, all.ms)).toFixed(1)} accepted/min with the fast runner\n`,
);
