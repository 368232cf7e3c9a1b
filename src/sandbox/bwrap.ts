import { existsSync, lstatSync, readlinkSync, statSync } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { errorMessage, UserError } from '../core/errors.js';
import { makeTempDir, removeTree } from '../core/fs.js';
import { runProcess } from '../core/process.js';
import { javaHome } from '../toolchains/maven/maven.js';

/*
 * The agent sandbox: bubblewrap with a mount namespace that holds only the system (less the
 * system directories a policy hides), the agent's workspace, a private home, /tmp and the extra
 * paths the policy names.
 *
 * Maven must not run inside: Debian's Maven ships the exact jars of two corpus projects
 * (commons-lang3 3.12.0, commons-io 2.11.0), and the plugins' dependencies in a Maven repository
 * hold others, so an earlier design that bound the cache's repository read-only inside was
 * dropped. The evaluation hides Debian's Maven directories (`hiddenSystemDirs`) and puts the
 * harness's `mvn` first on PATH (`binDirs`).
 *
 * Measured with bubblewrap 0.8.0 on this machine (2 cores):
 * - Start-up: 6-12 ms per `bwrap ... /bin/true` (20 runs in 0.13-0.29 s, 0.03-0.05 s unwrapped).
 * - Java takes `user.home` from the password database, not $HOME (JDK 17 run as root with HOME
 *   elsewhere still says /root). So the private home is bound at the user's own home path, where
 *   a Java program inside looks for it.
 * - Run as root, bwrap keeps every capability inside: the agent could `umount` a masked directory
 *   and read what it hides (it did). `--cap-drop ALL` stops that (umount: must be superuser).
 * - Own pid namespace: the host's processes are not listed. A timeout kills bwrap's process
 *   group; `--new-session` takes the command out of it, but the sandbox's init dies with bwrap
 *   (`--die-with-parent`) and the end of the namespace kills whatever is left inside.
 */

/** Where the workspace is inside the sandbox. */
export const WORKSPACE_IN_SANDBOX = '/workspace';
/** Top-level directories that merged-/usr systems make symlinks into /usr. */
const ROOT_LINKS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];
const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin';
/** Host variables passed through: harmless, and programs print differently without them. */
const PASSED_THROUGH = ['LANG', 'LC_ALL', 'TZ'];

export interface SandboxPolicy {
  /** Host directory bound read-write at WORKSPACE_IN_SANDBOX. */
  workspace: string;
  /** Extra host paths visible at their own path, read-only. */
  readOnly?: readonly string[];
  /** Extra host paths visible at their own path, read-write (e.g. an adapter's scratch dir). */
  writable?: readonly string[];
  /** Share the host's network (an agent that calls a model endpoint); none otherwise. */
  network: boolean;
  /** Host directories visible read-only at their own path, first on PATH (the harness's `mvn`). */
  binDirs?: readonly string[];
  /**
   * Directories under /usr shown empty and read-only (Debian's Maven and its jars, which hold
   * corpus projects).
   */
  hiddenSystemDirs?: readonly string[];
}

export interface WrappedCommand {
  file: string;
  args: string[];
  /** The host directory to start bwrap in. */
  cwd: string;
}

export interface Sandbox {
  kind: 'sandbox';
  policy: SandboxPolicy;
  /** The private home as the sandboxed process sees it (HOME). */
  home: string;
  /**
   * The bwrap command that runs `file args` inside. `cwd` is a host path in the workspace
   * (translated to WORKSPACE_IN_SANDBOX) or in an extra bound path (same path inside).
   */
  wrap(file: string, args: readonly string[], cwd: string): WrappedCommand;
  /**
   * The whole environment of the sandboxed process: PATH, HOME, TMPDIR, USER, JAVA_HOME and a
   * few locale variables, then `extra` (API keys and the like). Nothing else of the host's.
   */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  /** This sandbox, same private home, with one more host directory writable at its own path. */
  withWritable(dir: string): Promise<Sandbox>;
  /** Removes the private home, shared by the sandboxes derived from this one. */
  dispose(): Promise<void>;
}

export type SandboxAvailability =
  { kind: 'Available'; version: string } | { kind: 'Unavailable'; reason: string };

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The system as every sandbox sees it, read-only. */
function systemArgs(): string[] {
  const args = ['--ro-bind', '/usr', '/usr', '--ro-bind', '/etc', '/etc'];
  for (const name of ROOT_LINKS) {
    const host = `/${name}`;
    let isLink: boolean;
    try {
      isLink = lstatSync(host).isSymbolicLink();
    } catch {
      continue; // not on this system
    }
    args.push(...(isLink ? ['--symlink', readlinkSync(host), host] : ['--ro-bind', host, host]));
  }
  return [...args, '--proc', '/proc', '--dev', '/dev'];
}

/** Namespaces and process handling shared by the sandbox and the availability probe. */
function isolationArgs(network: boolean): string[] {
  return [
    '--unshare-all',
    ...(network ? ['--share-net'] : []),
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
  ];
}

let availability: Promise<SandboxAvailability> | undefined;

/** Whether bubblewrap is installed and may create the namespaces a sandbox needs (cached). */
export function sandboxAvailability(): Promise<SandboxAvailability> {
  availability ??= probe();
  return availability;
}

async function probe(): Promise<SandboxAvailability> {
  const bwrap = findOnPath('bwrap');
  if (!bwrap) {
    return { kind: 'Unavailable', reason: 'bwrap (bubblewrap) is not installed or not on PATH' };
  }
  try {
    const version = await runProcess(bwrap, ['--version'], { timeoutMs: 10_000 });
    const run = await runProcess(bwrap, [...systemArgs(), ...isolationArgs(false), '--', 'true'], {
      timeoutMs: 10_000,
      env: { PATH: SANDBOX_PATH },
    });
    if (run.exitCode !== 0) {
      return {
        kind: 'Unavailable',
        reason: `bwrap cannot create its namespaces here (exit ${run.exitCode ?? run.signal}): ${run.stderr.trim() || 'no message'}`,
      };
    }
    return { kind: 'Available', version: version.stdout.trim().replace(/^bubblewrap\s+/, '') };
  } catch (error) {
    return { kind: 'Unavailable', reason: `bwrap: ${errorMessage(error)}` };
  }
}

async function existingRealPath(what: string, given: string): Promise<string> {
  if (!path.isAbsolute(given)) throw new UserError(`sandbox ${what} must be absolute: ${given}`);
  try {
    return await realpath(given);
  } catch {
    throw new UserError(`sandbox ${what} does not exist: ${given}`);
  }
}

/** The directories none of the others contain: a mask inside a mask has no mount point. */
function outermost(dirs: readonly string[]): string[] {
  const sorted = [...new Set(dirs)].sort();
  return sorted.filter((dir) => !sorted.some((other) => other !== dir && isWithin(other, dir)));
}

function isWithin(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Where the private home goes: the user's home from the password database, which Java reads for
 * user.home, unless that path would clash with the sandbox's own mount points.
 */
function homeInSandbox(): string {
  let home: string;
  try {
    home = os.userInfo().homedir;
  } catch {
    return '/home/sandbox';
  }
  const reserved = ['/usr', '/etc', '/proc', '/dev', '/tmp', WORKSPACE_IN_SANDBOX];
  const clashes = reserved.some((dir) => isWithin(dir, home) || isWithin(home, dir));
  return path.isAbsolute(home) && home !== '/' && !clashes ? home : '/home/sandbox';
}

/** A host path as bound: its real location, shown at the path it was given as. */
interface Bound {
  source: string;
  dest: string;
}

interface Resolved {
  workspace: string;
  readOnly: Bound[];
  writable: Bound[];
  hidden: string[];
}

async function resolvePolicy(policy: SandboxPolicy): Promise<Resolved> {
  const workspace = await existingRealPath('workspace', policy.workspace);
  if (!(await stat(workspace)).isDirectory()) {
    throw new UserError(`sandbox workspace is not a directory: ${policy.workspace}`);
  }
  const extras = (what: string, paths: readonly string[] = []) =>
    Promise.all(
      paths.map(async (given): Promise<Bound> => {
        const source = await existingRealPath(what, given);
        const dest = path.resolve(given);
        if (source === '/' || dest === '/') throw new UserError(`sandbox cannot bind / (${what})`);
        return { source, dest };
      }),
    );
  return {
    workspace,
    readOnly: await extras('read-only path', [
      ...(policy.readOnly ?? []),
      ...(policy.binDirs ?? []),
    ]),
    writable: await extras('writable path', policy.writable),
    hidden: outermost(
      (policy.hiddenSystemDirs ?? []).map((dir) => {
        if (!path.isAbsolute(dir) || !isWithin('/usr', dir) || dir === '/usr') {
          throw new UserError(`a hidden system directory must be under /usr: ${dir}`);
        }
        return path.resolve(dir);
      }),
    ),
  };
}

/**
 * An empty, read-only tmpfs over a directory (/dev/null over a file). One that does not exist on
 * the host has nothing to hide, and bwrap could not create its mount point in a read-only bind.
 */
function maskArgs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return statSync(dir).isDirectory()
    ? ['--tmpfs', dir, '--remount-ro', dir]
    : ['--ro-bind', '/dev/null', dir];
}

function mountArgs(resolved: Resolved, hostHome: string, home: string, network: boolean): string[] {
  const args = [...isolationArgs(network), ...systemArgs(), '--tmpfs', '/tmp'];
  args.push('--bind', hostHome, home);
  for (const dir of resolved.hidden) args.push(...maskArgs(dir));
  const jdk = javaHome();
  if (jdk && !isWithin('/usr', jdk) && existsSync(jdk)) args.push('--ro-bind', jdk, jdk);
  if (network) {
    // A resolv.conf that links into /run (systemd-resolved) needs its target to resolve names.
    try {
      if (lstatSync('/etc/resolv.conf').isSymbolicLink()) {
        const target = path.resolve('/etc', readlinkSync('/etc/resolv.conf'));
        if (existsSync(target)) args.push('--ro-bind', target, target);
      }
    } catch {
      // No resolv.conf: nothing to add.
    }
  }
  args.push('--bind', resolved.workspace, WORKSPACE_IN_SANDBOX);
  for (const { source, dest } of resolved.readOnly) args.push('--ro-bind', source, dest);
  for (const { source, dest } of resolved.writable) args.push('--bind', source, dest);
  return args;
}

interface Shared {
  bwrap: string;
  hostHome: string;
  home: string;
}

function makeSandbox(policy: SandboxPolicy, resolved: Resolved, shared: Shared): Sandbox {
  const mounts = mountArgs(resolved, shared.hostHome, shared.home, policy.network);
  const extras = [...resolved.readOnly, ...resolved.writable].map((bound) => bound.dest);
  const translate = (cwd: string): string => {
    const absolute = path.resolve(cwd);
    for (const workspace of [path.resolve(policy.workspace), resolved.workspace]) {
      if (isWithin(workspace, absolute)) {
        return path.join(WORKSPACE_IN_SANDBOX, path.relative(workspace, absolute));
      }
    }
    if (extras.some((p) => isWithin(p, absolute))) return absolute;
    throw new Error(`${cwd} is not visible in the sandbox (not in the workspace or a bound path)`);
  };
  return {
    kind: 'sandbox',
    policy,
    home: shared.home,
    wrap: (file, args, cwd) => ({
      file: shared.bwrap,
      args: [...mounts, '--chdir', translate(cwd), '--', file, ...args],
      cwd: path.resolve(cwd),
    }),
    env: (extra = {}) => {
      const jdk = javaHome();
      const env: NodeJS.ProcessEnv = {
        PATH: [
          ...(policy.binDirs ?? []).map((dir) => path.resolve(dir)),
          ...(jdk ? [path.join(jdk, 'bin')] : []),
          SANDBOX_PATH,
        ].join(':'),
        HOME: shared.home,
        TMPDIR: '/tmp',
        USER: path.basename(shared.home),
        ...(jdk && { JAVA_HOME: jdk }),
      };
      for (const name of PASSED_THROUGH) {
        const value = process.env[name];
        if (value !== undefined) env[name] = value;
      }
      return { ...env, ...extra };
    },
    withWritable: async (dir) => {
      const writable = [...(policy.writable ?? []), dir];
      const derived = { ...policy, writable };
      return makeSandbox(derived, await resolvePolicy(derived), shared);
    },
    dispose: () => removeTree(shared.hostHome),
  };
}

/**
 * A sandbox for one agent run: checks the paths, and makes the private home (empty). Dispose it
 * after the run; one home per run keeps runs from leaving notes for each other.
 */
/** Files that hold compiled Java: what could carry a library's code into the sandbox. */
const JAVA_ARCHIVE = /\.(jar|war|ear|class)$/;

let javaArchiveDirs: Promise<string[]> | undefined;

/**
 * The directories under /usr, outside the JDKs, that directly hold Java archives or classes
 * (symbolic links included), found once per process. Any system may carry libraries there: this
 * machine's Google Cloud SDK ships fat jars with commons-lang3, commons-io, commons-codec,
 * jackson-core, joda-time and jsoup inside, and Debian's Maven the exact commons-lang3 and
 * commons-io of the corpus. Hiding them all keeps every version of a corpus project out.
 */
export function systemJavaArchiveDirs(): Promise<string[]> {
  javaArchiveDirs ??= (async () => {
    const dirs = new Set<string>();
    const walk = async (dir: string): Promise<void> => {
      if (dir === '/usr/lib/jvm') return;
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return; // unreadable: the sandbox could not show it either
      }
      for (const entry of entries) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (JAVA_ARCHIVE.test(entry.name)) dirs.add(dir);
      }
    };
    await walk('/usr');
    return [...dirs].sort();
  })();
  return javaArchiveDirs;
}

export async function createSandbox(policy: SandboxPolicy): Promise<Sandbox> {
  const bwrap = findOnPath('bwrap');
  if (!bwrap) throw new UserError('the agent sandbox needs bwrap (bubblewrap) on PATH');
  const resolved = await resolvePolicy(policy);
  const hostHome = await makeTempDir('sandbox-home');
  return makeSandbox(policy, resolved, { bwrap, hostHome, home: homeInSandbox() });
}
