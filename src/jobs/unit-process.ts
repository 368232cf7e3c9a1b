import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { z } from 'zod';
import { cacheLayout } from '../core/cache.js';
import { errorMessage, UserError } from '../core/errors.js';
import { removeAtStop, removeTree } from '../core/fs.js';
import { cleanUpForStop } from '../core/fs.js';
import { trackProcessGroup, untrackProcessGroup } from '../core/process.js';
import { UnitRefused, type JobRegistry } from './kind.js';

/*
 * Each unit runs in a process of its own, in its own process group, started by the worker that
 * took the job. The worker's event loop stays free to renew the job's lock however long the unit
 * runs, and a worker that dies (killed, host lost) takes its unit with it: the unit's process
 * sees its channel to the worker close and kills every process group it started, so nothing it
 * left can write into the directory of the unit's next run (which is a fresh one anyway).
 */

const UnitRequestSchema = z.strictObject({
  kind: z.string(),
  payload: z.unknown(),
  cacheRoot: z.string(),
  workDir: z.string(),
});
export type UnitRequest = z.infer<typeof UnitRequestSchema>;

export type UnitResponse =
  | { kind: 'Done'; result: unknown }
  /** The unit cannot run as given; another try would fail the same way. */
  | { kind: 'Refused'; reason: string }
  /** Something around the unit failed (a crash, a lost file system): worth another try. */
  | { kind: 'Fault'; reason: string };

/** The environment variable every process of a unit carries: its run's name, to find strays. */
export const UNIT_MARKER_ENV = 'WITNESSGYM_UNIT';

/** Runs one unit in a fresh process and waits for its response; the process's group is killed after. */
export function runInUnitProcess(
  command: readonly string[],
  request: UnitRequest,
  marker: string,
): Promise<UnitResponse> {
  const child = spawn(command[0]!, command.slice(1), {
    detached: true,
    stdio: ['ignore', 2, 2, 'ipc'],
    env: { ...process.env, [UNIT_MARKER_ENV]: marker },
  });
  if (child.pid !== undefined) trackProcessGroup(child.pid);
  return new Promise((resolve) => {
    let response: UnitResponse | undefined;
    child.on('message', (message) => {
      response = message as UnitResponse;
    });
    child.once('error', (error) => {
      resolve({ kind: 'Fault', reason: `the unit's process could not start: ${error.message}` });
    });
    child.once('exit', (code, signal) => {
      if (child.pid !== undefined) {
        untrackProcessGroup(child.pid);
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // The group is gone already.
        }
      }
      resolve(
        response ?? {
          kind: 'Fault',
          reason: `the unit's process ended (${signal ?? `exit ${code}`}) without a result`,
        },
      );
    });
    child.send(request);
  });
}

/** The unit process's side: one request in, one response out, then it ends. */
export function serveUnitRequest(registry: JobRegistry): Promise<void> {
  if (!process.send) {
    throw new UserError('this command is started by `witnessgym worker`, not by hand');
  }
  // The worker is gone: nothing this unit does can reach anyone, and nothing may outlive it.
  process.once('disconnect', () => {
    cleanUpForStop();
    process.exit(1);
  });
  return new Promise((done) => {
    process.once('message', (message) => {
      void answer(registry, message).then((response) => {
        process.send!(response, () => {
          done();
          process.exit(0);
        });
      });
    });
  });
}

async function answer(registry: JobRegistry, message: unknown): Promise<UnitResponse> {
  const request = UnitRequestSchema.safeParse(message);
  if (!request.success) return { kind: 'Refused', reason: 'malformed unit request' };
  const kind = registry.get(request.data.kind);
  if (!kind)
    return { kind: 'Refused', reason: `this witnessgym has no job kind '${request.data.kind}'` };
  const payload = kind.payload.safeParse(request.data.payload);
  if (!payload.success) {
    return {
      kind: 'Refused',
      reason: `a ${kind.name} payload of another shape (is every host on one witnessgym version?)`,
    };
  }
  const { workDir, cacheRoot } = request.data;
  removeAtStop(workDir);
  try {
    await mkdir(workDir, { recursive: true });
    const result = await kind.run(payload.data, { cache: cacheLayout(cacheRoot), workDir });
    return { kind: 'Done', result: kind.result.parse(result) };
  } catch (error) {
    return error instanceof UnitRefused || error instanceof UserError
      ? { kind: 'Refused', reason: errorMessage(error) }
      : { kind: 'Fault', reason: errorMessage(error) };
  } finally {
    await removeTree(workDir);
  }
}
