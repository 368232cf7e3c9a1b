import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../core/errors.js';

/*
 * Caps on processes and memory for one untrusted run, from a control group of its own: a fork
 * bomb or a test that allocates without end hits the group's limit, not the machine. (rlimits
 * cannot do it: the harness runs as root in CI, and root's RLIMIT_NPROC is not enforced; an
 * address-space limit breaks the JVM, which reserves far more than it uses.) The group is entered
 * by a shell that writes its own pid into the group and then executes the command, so every
 * process of the run starts inside. Both cgroup layouts are handled: v1 (a pids and a memory
 * hierarchy, as on this machine) and v2 (one unified hierarchy). Where neither can be written,
 * the run goes on without the caps and says so.
 */

export interface GroupLimits {
  /** Processes and threads together. */
  pids: number;
  memoryBytes: number;
}

export type ControlGroup =
  | {
      kind: 'Limited';
      /** Runs `file args` inside the group: the command to spawn instead. */
      enter(file: string, args: readonly string[]): { file: string; args: string[] };
      /** Removes the group once every process of it is gone. */
      dispose(): Promise<void>;
    }
  | { kind: 'Unlimited'; reason: string };

const ROOT = '/sys/fs/cgroup';

/** Where this process sits in each hierarchy (`/proc/self/cgroup`): controller → path. */
async function ownGroups(): Promise<Map<string, string>> {
  const groups = new Map<string, string>();
  for (const line of (await readFile('/proc/self/cgroup', 'utf8')).trim().split('\n')) {
    const [, controllers, where] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (controllers === undefined || where === undefined) continue;
    for (const controller of controllers === '' ? ['unified'] : controllers.split(',')) {
      groups.set(controller, where);
    }
  }
  return groups;
}

interface Made {
  dir: string;
  procs: string;
}

async function makeGroup(
  parent: string,
  name: string,
  files: Record<string, string>,
): Promise<Made> {
  const dir = path.join(parent, name);
  await mkdir(dir);
  try {
    for (const [file, value] of Object.entries(files)) await writeFile(path.join(dir, file), value);
  } catch (error) {
    await rmdir(dir).catch(() => undefined);
    throw error;
  }
  return { dir, procs: path.join(dir, 'cgroup.procs') };
}

async function v1Groups(name: string, limits: GroupLimits): Promise<Made[]> {
  const own = await ownGroups();
  const made: Made[] = [];
  try {
    made.push(
      await makeGroup(path.join(ROOT, 'pids', own.get('pids') ?? '/'), name, {
        'pids.max': String(limits.pids),
      }),
    );
    made.push(
      await makeGroup(path.join(ROOT, 'memory', own.get('memory') ?? '/'), name, {
        'memory.limit_in_bytes': String(limits.memoryBytes),
      }),
    );
    return made;
  } catch (error) {
    for (const group of made) await rmdir(group.dir).catch(() => undefined);
    throw error;
  }
}

async function v2Group(name: string, limits: GroupLimits): Promise<Made[]> {
  const own = await ownGroups();
  const unified = (await readFile(path.join(ROOT, 'cgroup.controllers'), 'utf8').catch(() => ''))
    ? ROOT
    : path.join(ROOT, 'unified');
  const parent = path.join(unified, own.get('unified') ?? '/');
  const controllers = await readFile(path.join(parent, 'cgroup.subtree_control'), 'utf8');
  if (!/\bpids\b/.test(controllers) || !/\bmemory\b/.test(controllers)) {
    throw new Error(`${parent} does not delegate the pids and memory controllers`);
  }
  return [
    await makeGroup(parent, name, {
      'pids.max': String(limits.pids),
      'memory.max': String(limits.memoryBytes),
    }),
  ];
}

/** A fresh control group with the limits, or why there is none. */
export async function createControlGroup(limits: GroupLimits): Promise<ControlGroup> {
  const name = `witnessgym-${randomBytes(6).toString('hex')}`;
  let groups: Made[];
  try {
    groups = await v1Groups(name, limits);
  } catch (v1) {
    try {
      groups = await v2Group(name, limits);
    } catch (v2) {
      return {
        kind: 'Unlimited',
        reason: `no writable control group (v1: ${errorMessage(v1)}; v2: ${errorMessage(v2)})`,
      };
    }
  }
  return {
    kind: 'Limited',
    enter: (file, args) => ({
      file: '/bin/sh',
      args: [
        '-c',
        // Joins every group (the pid file paths come first), then becomes the command.
        'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; exec "$@"',
        'sh',
        String(groups.length),
        ...groups.map((group) => group.procs),
        file,
        ...args,
      ],
    }),
    async dispose() {
      for (const group of groups) {
        // The last processes of a killed run may take a moment to leave the group.
        for (let attempt = 0; ; attempt++) {
          try {
            await rmdir(group.dir);
            break;
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ENOENT') break;
            if (attempt >= 50) throw error;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }
      }
    },
  };
}

let support: Promise<string> | undefined;

/** Whether runs get their caps here, for the record: "limited", or why not (checked once). */
export function controlGroupSupport(): Promise<string> {
  support ??= (async () => {
    const group = await createControlGroup({ pids: 64, memoryBytes: 64 * 1024 * 1024 });
    if (group.kind === 'Unlimited') return `unavailable: ${group.reason}`;
    await group.dispose();
    return 'limited';
  })();
  return support;
}
