import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exists, makeTempDir, removeTree } from '../src/core/fs.js';
import { packageRoot } from '../src/core/package-root.js';
import {
  startLocalRedis,
  startWorkerProcess,
  type LocalRedis,
  type WorkerProcess,
} from '../src/jobs/local-cluster.js';
import { KEY_PREFIX } from '../src/jobs/connection.js';
import { UNIT_MARKER_ENV } from '../src/jobs/unit-process.js';
import type { WorkerEvent } from '../src/jobs/worker.js';
import type { CaseRecord } from '../src/stages/4-archive/case.js';
import type { AttemptRow } from '../src/stages/5-evaluate/records.js';
import { STORE_FILE } from '../src/stages/5-evaluate/store.js';
import { cli, ONE_CASE_BUILD, processesWhere, processesWithEnvironment } from './helpers.js';
import { sharedOneCaseBench, sharedPlantedInstance } from './shared-fixture.js';

/*
 * Evaluation as jobs on BullMQ, with a real redis-server on a loopback port and three worker
 * processes: one is killed mid-unit, and the run must still equal the same evaluation run in one
 * process, with no unit completed twice and nothing of the killed unit left running. A build and a
 * strengthening through the queue each equal the same run in one process.
 */

const CLI = path.join(packageRoot(), 'dist', 'src', 'cli', 'main.js');

let work: string;
let bench: string;
let record: CaseRecord;
let redis: LocalRedis;
let queueUrl: string;
/** The scripted agent of three attempts the first test writes, for the others. */
let scriptedAgent: string[];

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  work = await makeTempDir('jobs');
  ({ bench, record } = await sharedOneCaseBench(work));
  redis = await startLocalRedis(work);
  queueUrl = redis.url;
});

afterAll(async () => {
  redis?.stop();
  if (work) await removeTree(work);
});

function startWorker(name: string): WorkerProcess {
  return startWorkerProcess(CLI, [
    ...['--redis', queueUrl, '--lock-seconds', '3'],
    ...['--work-dir', path.join(work, `worker-${name}`)],
  ]);
}

function rowsOf(run: string): AttemptRow[] {
  const db = new Database(path.join(run, STORE_FILE), { readonly: true });
  try {
    return (
      db
        .prepare(`SELECT row FROM attempts WHERE state = 'done' ORDER BY case_id, setting, attempt`)
        .all() as { row: string }[]
    ).map((r) => JSON.parse(r.row) as AttemptRow);
  } finally {
    db.close();
  }
}

/**
 * A row without what differs between two runs of the same attempt: times, and the hash of the
 * checkout's uncommitted edits, which changes when someone edits while the tests run.
 */
function comparable(row: AttemptRow) {
  const { agentMs, verifyMs, finishedAt, tools, ...rest } = row;
  void agentMs;
  void verifyMs;
  void finishedAt;
  const { witnessgymTree, ...otherTools } = tools;
  void witnessgymTree;
  return { ...rest, tools: otherTools };
}

/** Whether one of `workers` completed a unit of the job kind `name`. */
function completedOn(workers: readonly WorkerProcess[], name: string): boolean {
  return workers.some((w) => w.events.some((e) => e.kind === 'UnitCompleted' && e.name === name));
}

/** Processes still carrying a unit's marker in their environment. */
function processesOfUnit(unit: string): Promise<number[]> {
  return processesWithEnvironment(`${UNIT_MARKER_ENV}=${unit}`);
}

describe('witnessgym evaluate --queue with three workers', () => {
  it('loses nothing and doubles nothing when a worker is killed mid-unit, and equals a run in one process', async () => {
    // Three attempts per item, so each item's attempts follow one another through the queue.
    const script = path.join(work, 'script.json');
    const witness = JSON.parse(
      await readFile(path.join(bench, 'hidden', record.id, 'witness.json'), 'utf8'),
    ) as { path: string };
    const witnessText = await readFile(
      path.join(bench, 'hidden', record.id, 'files', witness.path),
      'utf8',
    );
    const passing = `package {testPackage};\n\nimport org.junit.Test;\n\npublic class {testClass} {\n    @Test\n    public void passes() {\n    }\n}\n`;
    await writeFile(
      script,
      JSON.stringify({
        attempts: [
          { files: { [witness.path]: passing } },
          { files: { [witness.path]: 'class Broken {' } },
          { files: { [witness.path]: witnessText } },
        ],
      }),
    );
    const agent = ['--agent', 'scripted', '--script', script];
    scriptedAgent = agent;

    const local = path.join(work, 'run-local');
    const here = await cli(['evaluate', bench, ...agent, '--run', local, '--json']);
    expect(here.exitCode, here.stderr).toBe(0);
    const expected = rowsOf(local);
    expect(expected.map((row) => row.diagnosis.kind)).toEqual([
      'NotReached',
      'DoesNotCompile',
      'Success',
      'NotReached',
      'DoesNotCompile',
      'Success',
    ]);

    const workers = ['a', 'b', 'c'].map(startWorker);
    try {
      await Promise.all(workers.map((w) => w.ready()));
      const queued = path.join(work, 'run-queued');
      const coordinator = cli([
        'evaluate',
        bench,
        ...agent,
        '--run',
        queued,
        '--queue',
        queueUrl,
        '--json',
      ]);

      // Kill the first worker to start a unit that runs Maven (attempt 1's test), mid-unit.
      let victim: WorkerProcess | undefined;
      let started: Extract<WorkerEvent, { kind: 'UnitStarted' }> | undefined;
      await until('a unit to start', () => {
        for (const w of workers) {
          const event = w.events.find((e) => e.kind === 'UnitStarted');
          if (event?.kind === 'UnitStarted') {
            victim = w;
            started = event;
            return true;
          }
        }
        return false;
      });
      await until(
        'the unit to start its processes',
        async () => (await processesOfUnit(started!.unit)).length > 1,
      );
      process.kill(victim!.child.pid!, 'SIGKILL');
      await victim!.exited;

      const result = await coordinator;
      expect(result.exitCode, result.stderr).toBe(0);

      // Nothing of the killed unit is left running, nor its directory.
      await until(
        'the killed unit to end',
        async () => (await processesOfUnit(started!.unit)).length === 0,
        20_000,
      );
      expect(
        await exists(
          path.join(work, `worker-${['a', 'b', 'c'][workers.indexOf(victim!)]}`, started!.unit),
        ),
      ).toBe(false);

      // The killed unit was finished by another worker, and no unit completed twice.
      const completed = workers.flatMap((w) =>
        w.events.flatMap((e) => (e.kind === 'UnitCompleted' ? [e] : [])),
      );
      expect(completed.filter((e) => e.job === started!.job)).toHaveLength(1);
      expect(victim!.events.some((e) => e.kind === 'UnitCompleted' && e.job === started!.job)).toBe(
        false,
      );
      const jobs = completed.map((e) => e.job);
      expect(new Set(jobs).size).toBe(jobs.length);
      expect(jobs).toHaveLength(6);

      // The same rows as the run in one process, each once.
      const rows = rowsOf(queued);
      expect(rows.map(comparable)).toEqual(expected.map(comparable));

      // A rerun resumes: every item is done, nothing is submitted again.
      const again = await cli([
        'evaluate',
        bench,
        ...agent,
        '--run',
        queued,
        '--queue',
        queueUrl,
        '--json',
      ]);
      expect(again.exitCode, again.stderr).toBe(0);
      expect(again.json).toMatchObject({ attemptsRun: 0, alreadyDone: 2 });
    } finally {
      for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGTERM');
      await Promise.all(workers.map((w) => w.exited));
    }
  });

  it('builds the same benchmark with --queue as in one process', async () => {
    const workers = ['d', 'e'].map(startWorker);
    try {
      const out = path.join(work, 'bench-queued');
      const built = await cli([
        ...['build', 'json-simple', ...ONE_CASE_BUILD, '--out', out],
        ...['--queue', queueUrl, '--json'],
      ]);
      expect(built.exitCode, built.stderr).toBe(0);
      // The units ran on the workers, none here.
      expect(completedOn(workers, 'build-case')).toBe(true);
      const here = await readFile(path.join(bench, 'cases.jsonl'), 'utf8');
      expect(await readFile(path.join(out, 'cases.jsonl'), 'utf8')).toBe(here);
      for (const file of ['case.json', 'bug.patch', 'tasks/NoEC.md', 'execution_context.json']) {
        expect(await readFile(path.join(out, record.id, file), 'utf8')).toBe(
          await readFile(path.join(bench, record.id, file), 'utf8'),
        );
      }
    } finally {
      for (const w of workers) w.child.kill('SIGTERM');
      await Promise.all(workers.map((w) => w.exited));
    }
  });

  it('strengthens an instance with --queue as in one process', async () => {
    const { instancesFile } = await sharedPlantedInstance(work);
    const strengthen = (out: string, queue: string[] = []) =>
      cli(['strengthen', instancesFile, '--stages', 'coverage', '--out', out, ...queue, '--json']);
    const here = path.join(work, 'strong-here');
    const local = await strengthen(here);
    expect(local.exitCode, local.stderr).toBe(0);
    // Validated by S0 (the shared fixture), so strengthened, not skipped.
    expect(local.json).toMatchObject({ instances: 1, skipped: [] });
    const workers = ['s'].map(startWorker);
    try {
      const out = path.join(work, 'strong-queued');
      const queued = await strengthen(out, ['--queue', queueUrl]);
      expect(queued.exitCode, queued.stderr).toBe(0);
      // The unit ran on the worker, not here.
      expect(completedOn(workers, 'strengthen-instance')).toBe(true);
      const {
        durationMs: queuedMs,
        out: queuedOut,
        ...queuedSummary
      } = queued.json as {
        durationMs: number;
        out: string;
      };
      const {
        durationMs: localMs,
        out: localOut,
        ...localSummary
      } = local.json as {
        durationMs: number;
        out: string;
      };
      void [queuedMs, queuedOut, localMs, localOut];
      expect(JSON.stringify(queuedSummary).replaceAll(out, here)).toBe(
        JSON.stringify(localSummary),
      );
      expect(await readFile(path.join(out, 'strengthened.jsonl'), 'utf8')).toBe(
        await readFile(path.join(here, 'strengthened.jsonl'), 'utf8'),
      );
    } finally {
      for (const w of workers) w.child.kill('SIGTERM');
      await Promise.all(workers.map((w) => w.exited));
    }
  });

  it('splits an evaluation into shards run side by side, whose merge equals the run in one process', async () => {
    const shards = await Promise.all(
      [1, 2].map((index) =>
        cli([
          'evaluate',
          bench,
          ...scriptedAgent,
          '--run',
          path.join(work, `run-shard-${index}`),
          '--shard',
          `${index}/2`,
          '--json',
        ]),
      ),
    );
    for (const shard of shards) expect(shard.exitCode, shard.stderr).toBe(0);
    expect(
      shards.map((shard) => (shard.json as { items: number }).items).reduce((a, b) => a + b),
    ).toBe(2);
    const out = path.join(work, 'run-merged');
    const merged = await cli([
      'merge',
      path.join(work, 'run-shard-1'),
      path.join(work, 'run-shard-2'),
      '--out',
      out,
      '--json',
    ]);
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(merged.json).toMatchObject({ kind: 'evaluation', added: 6, conflicts: [] });
    expect(rowsOf(out).map(comparable)).toEqual(
      rowsOf(path.join(work, 'run-local')).map(comparable),
    );
    // The same shard merged again is the same units, not new ones.
    const again = await cli(['merge', path.join(work, 'run-shard-1'), '--out', out, '--json']);
    expect(again.json).toMatchObject({ added: 0, conflicts: [] });
  });

  it('runs at most --agent-concurrency attempts at once across all workers', async () => {
    const workers = ['f', 'g'].map(startWorker);
    try {
      await Promise.all(workers.map((w) => w.ready()));
      const run = path.join(work, 'run-capped');
      const capped = await cli([
        ...['evaluate', bench, '--agent', 'witness', '--run', run],
        ...['--queue', queueUrl, '--agent-concurrency', '1', '--json'],
      ]);
      expect(capped.exitCode, capped.stderr).toBe(0);
      // Each unit's span, from its start to its end as the workers stamped them (one clock here).
      const spans = workers.flatMap((w) =>
        w.events.flatMap((start) => {
          if (start.kind !== 'UnitStarted') return [];
          const end = w.events.find((e) => e.kind === 'UnitCompleted' && e.job === start.job);
          return end ? [{ from: start.at, to: end.at }] : [];
        }),
      );
      expect(spans).toHaveLength(2);
      const [first, second] = spans.sort((a, b) => a.from - b.from);
      expect(second!.from).toBeGreaterThanOrEqual(first!.to);
    } finally {
      for (const w of workers) w.child.kill('SIGTERM');
      await Promise.all(workers.map((w) => w.exited));
    }
  });

  it("ends what a killed worker's unit started at once, not when the unit would have ended", async () => {
    // The agent sleeps far longer than the test waits: only the unit's own defence ends it.
    const seconds = '97';
    const sleeping = () =>
      processesWhere(
        'cmdline',
        (argv) => path.basename(argv[0] ?? '') === 'sleep' && argv[1] === seconds,
      );
    const worker = startWorker('h');
    const coordinator = spawn(
      process.execPath,
      [
        ...[CLI, 'evaluate', bench, '--agent', 'command', '--agent-command', `sleep ${seconds}`],
        ...['--attempts', '1', '--run', path.join(work, 'run-orphaned'), '--queue', queueUrl],
      ],
      { detached: true, stdio: 'ignore' },
    );
    try {
      await worker.ready();
      await until('the agent to sleep', async () => (await sleeping()).length > 0);
      const started = worker.events.find((e) => e.kind === 'UnitStarted');
      process.kill(worker.child.pid!, 'SIGKILL');
      await worker.exited;
      await until(
        "the killed unit's agent to be ended",
        async () =>
          (await sleeping()).length === 0 &&
          started?.kind === 'UnitStarted' &&
          (await processesOfUnit(started.unit)).length === 0,
        10_000,
      );
    } finally {
      process.kill(-coordinator.pid!, 'SIGKILL');
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
      // Its job would otherwise wait for the next test's workers.
      const connection = new Redis(queueUrl);
      const queue = new Queue('evaluate', { connection, prefix: KEY_PREFIX });
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
  });

  it('refuses a server that may evict keys, which would lose jobs', async () => {
    const client = new Redis(queueUrl);
    try {
      await client.config('SET', 'maxmemory-policy', 'allkeys-lru');
      const refused = await cli(['worker', '--redis', queueUrl]);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain(
        "may evict keys (maxmemory-policy allkeys-lru), which loses jobs: set 'maxmemory-policy noeviction'",
      );
    } finally {
      await client.config('SET', 'maxmemory-policy', 'noeviction');
      client.disconnect();
    }
  });

  it('refuses a queue it cannot reach with one line saying what to do', async () => {
    // Nothing listens on port 1.
    const result = await cli([
      'evaluate',
      bench,
      '--agent',
      'witness',
      '--queue',
      'redis://127.0.0.1:1',
    ]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(
      /cannot reach Redis at redis:\/\/127\.0\.0\.1:1 \(.*ECONNREFUSED.*\): start redis-server/,
    );
  });
});
