import { existsSync, lstatSync, readlinkSync, statSync } from 'node:fs';
import { readdir, realpath, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { errorMessage, UserError } from '../core/errors.js';
import { makeTempDir, removeTree } from '../core/fs.js';
import { runProcess } from '../core/process.js';
import { javaHome } from '../toolchains/maven/maven.js';
import { createControlGroup, type ControlGroup, type GroupLimits } from './cgroup.js';
import { RELAY_SCRIPT, startEgressProxy, type EgressProxy } from './egress-proxy.js';

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
 * - Own network namespace always (only `lo`, which bwrap brings up). An agent that calls a model
 *   reaches its allow-listed endpoints through the harness's egress proxy (egress-proxy.ts): a
 *   relay on the sandbox's 127.0.0.1:EGRESS_PORT, started before the agent's command, forwards to
 *   the proxy's Unix socket. The relay adds about 50 ms (node's start) to each wrapped command.
 */

/** Where the workspace is inside the sandbox. */
export const WORKSPACE_IN_SANDBOX = '/workspace';
/** Top-level directories that merged-/usr systems make symlinks into /usr. */
const ROOT_LINKS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];
const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin';
/** Host variables passed through: harmless, and programs print differently without them. */
const PASSED_THROUGH = ['LANG', 'LC_ALL', 'TZ'];

/**
 * What the sandbox may reach: nothing, or the listed `host:port` endpoints through the egress
 * proxy. There is no open network: every witness is a public upstream test, a download away.
 */
export type NetworkPolicy = { kind: 'none' } | { kind: 'allow'; endpoints: readonly string[] };

/** The relay's port on the sandbox's own loopback: any port is free in a fresh namespace. */
export const EGRESS_PORT = 3128;
/** Where the egress directory (relay script, proxy socket) is bound read-only inside. */
const EGRESS_IN_SANDBOX = '/run/witnessgym-egress';
/** Where the harness's node is bound when it is not under /usr (nvm and the like). */
const NODE_IN_SANDBOX = '/run/witnessgym-node';
/**
 * Starts the relay, waits until it listens (it creates the ready file), then becomes the agent's
 * command. The relay dies with the sandbox's pid namespace. Arguments: node, relay script,
 * socket, port, then the command.
 */
const RELAY_WRAPPER = [
  'node="$1" relay="$2" socket="$3" port="$4"; shift 4',
  'ready=/tmp/.witnessgym-egress-ready',
  '"$node" "$relay" "$socket" "$port" "$ready" </dev/null >/dev/null &',
  'relay_pid=$!',
  'while [ ! -e "$ready" ]; do',
  '  kill -0 "$relay_pid" 2>/dev/null || { echo "witnessgym: the egress relay did not start" >&2; exit 125; }',
  '  sleep 0.01',
  'done',
  'rm -f "$ready"',
  'exec "$@"',
].join('\n');

export interface SandboxPolicy {
  /** Host directory bound read-write at WORKSPACE_IN_SANDBOX. */
  workspace: string;
  /** Extra host paths visible at their own path, read-only. */
  readOnly?: readonly string[];
  /** Extra host paths visible at their own path, read-write (e.g. an adapter's scratch dir). */
  writable?: readonly string[];
  /** Default none. */
  network?: NetworkPolicy;
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
  /**
   * The egress proxy of a sandbox whose policy allows endpoints (shared with the sandboxes
   * derived from it): its decisions are the record of what the agent reached.
   */
  egress: EgressProxy | undefined;
  /** This sandbox, same private home, with one more host directory writable at its own path. */
  withWritable(dir: string): Promise<Sandbox>;
  /** Removes the private home and stops the egress proxy, shared by the sandboxes derived from this one. */
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

/** Namespaces (the network's too) and process handling shared by every sandbox and the probe. */
function isolationArgs(): string[] {
  return ['--unshare-all', '--cap-drop', 'ALL', '--die-with-parent', '--new-session'];
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
    const run = await runProcess(bwrap, [...systemArgs(), ...isolationArgs(), '--', 'true'], {
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

function mountArgs(resolved: Resolved, shared: Shared): string[] {
  const args = [...isolationArgs(), ...systemArgs(), '--tmpfs', '/tmp'];
  const { hostHome, home } = shared;
  args.push('--bind', hostHome, home);
  for (const dir of resolved.hidden) args.push(...maskArgs(dir));
  const jdk = javaHome();
  if (jdk && !isWithin('/usr', jdk) && existsSync(jdk)) args.push('--ro-bind', jdk, jdk);
  args.push('--bind', resolved.workspace, WORKSPACE_IN_SANDBOX);
  // Read-only binds last: a writable path over a parent must not make them writable again.
  for (const { source, dest } of resolved.writable) args.push('--bind', source, dest);
  for (const { source, dest } of resolved.readOnly) args.push('--ro-bind', source, dest);
  if (shared.egress) {
    args.push('--ro-bind', shared.egress.dir, EGRESS_IN_SANDBOX);
    const { nodeOutsideUsr } = shared.egress;
    if (nodeOutsideUsr) args.push('--ro-bind', nodeOutsideUsr, NODE_IN_SANDBOX);
  }
  return args;
}

/** The host side of a sandbox's egress: the proxy, and the directory bound inside. */
interface Egress {
  proxy: EgressProxy;
  /** Holds the relay script and the proxy's socket; only the harness writes there. */
  dir: string;
  /** The harness's node binary (real path), which runs the relay. */
  node: string;
  /** The same when the sandbox's /usr does not show it: bound at NODE_IN_SANDBOX. */
  nodeOutsideUsr: string | undefined;
}

interface Shared {
  bwrap: string;
  hostHome: string;
  home: string;
  egress: Egress | undefined;
  /** Caps on the agent's processes and memory, for every run in this sandbox. */
  group: ControlGroup;
}

/** An agent's processes and memory, all its runs together (a CLI agent is a large program). */
const AGENT_GROUP_LIMITS: GroupLimits = { pids: 4096, memoryBytes: 8 * 1024 * 1024 * 1024 };

async function startEgress(endpoints: readonly string[]): Promise<Egress> {
  const node = await realpath(process.execPath);
  const dir = await makeTempDir('sandbox-egress');
  try {
    await writeFile(path.join(dir, 'relay.mjs'), RELAY_SCRIPT);
    const proxy = await startEgressProxy({ socketPath: path.join(dir, 'proxy.sock'), endpoints });
    return { proxy, dir, node, nodeOutsideUsr: isWithin('/usr', node) ? undefined : node };
  } catch (error) {
    await removeTree(dir);
    throw error;
  }
}

/** The command that starts the relay, then `file args`, inside. */
function throughRelay(egress: Egress, file: string, args: readonly string[]): string[] {
  return [
    '/bin/sh',
    '-c',
    RELAY_WRAPPER,
    'egress-relay',
    egress.nodeOutsideUsr ? NODE_IN_SANDBOX : egress.node,
    `${EGRESS_IN_SANDBOX}/relay.mjs`,
    `${EGRESS_IN_SANDBOX}/proxy.sock`,
    String(EGRESS_PORT),
    file,
    ...args,
  ];
}

/** The proxy variables the usual clients read (curl, node's and Go's, Python's requests). */
function proxyEnv(): Record<string, string> {
  const url = `http://127.0.0.1:${EGRESS_PORT}`;
  return {
    HTTPS_PROXY: url,
    HTTP_PROXY: url,
    https_proxy: url,
    http_proxy: url,
    // Empty: loopback names go through the proxy as well (a local model endpoint on the host).
    NO_PROXY: '',
    no_proxy: '',
  };
}

function makeSandbox(policy: SandboxPolicy, resolved: Resolved, shared: Shared): Sandbox {
  const mounts = mountArgs(resolved, shared);
  const { egress } = shared;
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
    egress: egress?.proxy,
    wrap: (file, args, cwd) => {
      const bwrapArgs = [
        ...mounts,
        '--chdir',
        translate(cwd),
        '--',
        ...(egress ? throughRelay(egress, file, args) : [file, ...args]),
      ];
      const command =
        shared.group.kind === 'Limited'
          ? shared.group.enter(shared.bwrap, bwrapArgs)
          : { file: shared.bwrap, args: bwrapArgs };
      return { ...command, cwd: path.resolve(cwd) };
    },
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
        ...(egress && proxyEnv()),
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
    dispose: async () => {
      if (egress) {
        await egress.proxy.close();
        await removeTree(egress.dir);
      }
      if (shared.group.kind === 'Limited') await shared.group.dispose();
      await removeTree(shared.hostHome);
    },
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

/**
 * The start of every sandbox that runs untrusted Java (an agent's tests, compiled or run): its own
 * namespaces with no network, the system less the `hidden` directories, the JDK, an empty /tmp of
 * at most `tmpBytes`, and an empty home. The caller binds what the run needs.
 */
export function isolatedJavaArgs(hidden: readonly string[], tmpBytes: number): string[] {
  const args = [...isolationArgs(), ...systemArgs()];
  args.push('--size', String(tmpBytes), '--tmpfs', '/tmp');
  args.push('--size', String(tmpBytes), '--tmpfs', ISOLATED_HOME);
  for (const dir of outermost(hidden.map((dir) => path.resolve(dir)))) args.push(...maskArgs(dir));
  const jdk = javaHome();
  if (jdk && !isWithin('/usr', jdk) && existsSync(jdk)) args.push('--ro-bind', jdk, jdk);
  return args;
}

/** Home of an untrusted Java run: empty, the same for every run. */
export const ISOLATED_HOME = '/home/sandbox';

export async function createSandbox(policy: SandboxPolicy): Promise<Sandbox> {
  const bwrap = findOnPath('bwrap');
  if (!bwrap) throw new UserError('the agent sandbox needs bwrap (bubblewrap) on PATH');
  const resolved = await resolvePolicy(policy);
  const network = policy.network ?? { kind: 'none' };
  const egress = network.kind === 'allow' ? await startEgress(network.endpoints) : undefined;
  const hostHome = await makeTempDir('sandbox-home');
  const group = await createControlGroup(AGENT_GROUP_LIMITS);
  return makeSandbox(policy, resolved, { bwrap, hostHome, home: homeInSandbox(), egress, group });
}
