/**
 * Scaling of `build` and `evaluate` over BullMQ workers on this machine: the same build and the
 * same evaluations with 1, 2 and 4 worker processes (a fresh output each time, one Redis server),
 * their wall time, units per hour, speedup and efficiency per worker count, all in one run; and
 * what that predicts for N hosts like this one.
 *
 *   npm run bench:scale-out [-- --project json-simple] [--workers 1,2,4] [--agent-seconds 20]
 *     [--types logic_predicate_inversion_in_guard,npe_intra_method_guard_removed]
 *     [--depths 1,3] [--per-cell 2] [--build-only]
 *
 * Three workloads: the build (CPU-bound: Maven and warm JVMs; its inject stage runs on the
 * coordinator), the evaluation of the offline `witness` agent (CPU-bound: the verifier's Maven
 * runs), and an agent-bound evaluation whose agent waits `--agent-seconds` in the sandbox as a
 * model's API would (wall-bound, as the paper's agents are). Needs redis-server and the project
 * fetched into the user's cache. It prints what it measured; nothing here passes or fails.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { makeTempDir, removeTree } from '../src/core/fs.js';
import { packageRoot } from '../src/core/package-root.js';
import { runProcess } from '../src/core/process.js';
import {
  startLocalRedis,
  startWorkerProcess,
  type WorkerProcess,
} from '../src/jobs/local-cluster.js';

const { values } = parseArgs({
  options: {
    project: { type: 'string', default: 'json-simple' },
    workers: { type: 'string', default: '1,2,4' },
    'agent-seconds': { type: 'string', default: '20' },
    types: {
      type: 'string',
      default: 'logic_predicate_inversion_in_guard,npe_intra_method_guard_removed',
    },
    depths: { type: 'string', default: '1,3' },
    'per-cell': { type: 'string', default: '2' },
    // A project whose build is long (commons-codec) may be measured on its build alone.
    'build-only': { type: 'boolean', default: false },
  },
});
const counts = values.workers.split(',').map(Number);
const CLI = path.join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
const work = await makeTempDir('scale-out');

const redis = await startLocalRedis(work);
const queue = redis.url;

async function startWorkers(count: number, name: string): Promise<WorkerProcess[]> {
  const workers = Array.from({ length: count }, (_, index) =>
    startWorkerProcess(CLI, ['--redis', queue, '--work-dir', path.join(work, `${name}-w${index}`)]),
  );
  await Promise.all(workers.map((worker) => worker.ready()));
  return workers;
}

async function stopWorkers(workers: readonly WorkerProcess[]): Promise<void> {
  for (const worker of workers) worker.child.kill('SIGTERM');
  await Promise.all(workers.map((worker) => worker.exited));
}

interface Measured {
  workload: string;
  workers: number;
  wallMs: number;
  units: number;
  /** The units' own time, summed: the work a worker did, whoever did it. */
  unitMs: number;
}

async function measure(workload: string, count: number, args: string[]): Promise<Measured> {
  const workers = await startWorkers(count, `${workload}-${count}`);
  const started = performance.now();
  const result = await runProcess(process.execPath, [CLI, ...args, '--queue', queue], {
    timeoutMs: 4 * 3600_000,
  });
  const wallMs = performance.now() - started;
  await stopWorkers(workers);
  if (result.exitCode !== 0 && result.exitCode !== 1) {
    throw new Error(
      `${args.slice(0, 2).join(' ')} failed (${result.exitCode}): ${result.stderr.slice(-2000)}`,
    );
  }
  const completed = workers.flatMap((worker) =>
    worker.events.flatMap((event) => (event.kind === 'UnitCompleted' ? [event] : [])),
  );
  const measured = {
    workload,
    workers: count,
    wallMs,
    units: completed.length,
    unitMs: completed.reduce((sum, event) => sum + event.durationMs, 0),
  };
  process.stderr.write(
    `${workload} with ${count} workers: ${(wallMs / 1000).toFixed(1)} s, ${measured.units} units\n`,
  );
  return measured;
}

const rows: Measured[] = [];
const buildArgs = (out: string) => [
  'build',
  values.project,
  '--types',
  values.types,
  '--depths',
  values.depths,
  '--buckets',
  'short',
  '--per-cell',
  values['per-cell'],
  '--co-witnesses',
  'hide',
  '--out',
  out,
];
try {
  for (const count of counts) {
    rows.push(await measure('build', count, buildArgs(path.join(work, `bench-${count}`))));
  }
  // Every evaluation takes the first build's benchmark.
  const bench = path.join(work, `bench-${counts[0]}`);
  const evaluations = values['build-only'] ? [] : counts;
  for (const count of evaluations) {
    rows.push(
      await measure('evaluate witness', count, [
        'evaluate',
        bench,
        '--agent',
        'witness',
        '--run',
        path.join(work, `eval-witness-${count}`),
      ]),
    );
  }
  const seconds = values['agent-seconds'];
  for (const count of evaluations) {
    rows.push(
      await measure(`evaluate agent ${seconds} s`, count, [
        'evaluate',
        bench,
        '--agent',
        'command',
        '--agent-command',
        `sleep ${seconds}`,
        '--attempts',
        '1',
        '--run',
        path.join(work, `eval-agent-${count}`),
      ]),
    );
  }
} finally {
  redis.stop();
}

const lines = [
  `scale-out on this machine (${(await import('node:os')).cpus().length} cores), project ${values.project}`,
  'workload                 workers   wall s   units   units/h   speedup   efficiency',
];
for (const row of rows) {
  const one = rows.find((other) => other.workload === row.workload && other.workers === counts[0])!;
  const speedup = one.wallMs / row.wallMs;
  lines.push(
    [
      row.workload.padEnd(24),
      String(row.workers).padStart(7),
      (row.wallMs / 1000).toFixed(1).padStart(8),
      String(row.units).padStart(7),
      (row.units / (row.wallMs / 3_600_000)).toFixed(0).padStart(9),
      `${speedup.toFixed(2)}×`.padStart(9),
      `${((100 * speedup) / (row.workers / counts[0]!)).toFixed(0)}%`.padStart(12),
    ].join(' '),
  );
}
lines.push(
  '',
  "predicted wall time on H hosts like this one (2 workers each): the coordinator-only time with one worker, plus the units' time spread at the speedup 2 workers reached here",
  'workload                    H=1      H=2      H=4      H=8',
);
for (const workload of [...new Set(rows.map((row) => row.workload))]) {
  const one = rows.find((row) => row.workload === workload && row.workers === 1);
  const two = rows.find((row) => row.workload === workload && row.workers === 2);
  if (!one || !two) continue;
  const serialMs = Math.max(0, one.wallMs - one.unitMs);
  const perHost = one.wallMs / two.wallMs;
  const predicted = [1, 2, 4, 8].map((hosts) => (serialMs + one.unitMs / (hosts * perHost)) / 1000);
  lines.push(
    [
      workload.padEnd(24),
      ...predicted.map((seconds) => `${seconds.toFixed(0)} s`.padStart(8)),
    ].join(' '),
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
await removeTree(work);
