import { existsSync, lstatSync, readlinkSync, statSync } from 'node:fs';
import { mkdir, realpath, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { errorMessage, UserError } from '../core/errors.js';
import { makeTempDir, removeTree } from '../core/fs.js';
import { runProcess } from '../core/process.js';
import { javaHome, mavenEnvironment } from '../toolchains/maven/maven.js';

/*
 * The agent sandbox: bubblewrap with a mount namespace that holds only the system, the agent's
 * workspace, a private home and /tmp, and a read-only Maven repository.
 *
 * Measured with bubblewrap 0.8.0 on this machine (2 cores):
 * - Start-up: about 6 ms per `bwrap ... /bin/true` (20 runs in 0.13 s, against 0.03 s unwrapped).
 * - Maven with the repository bound read-only works: `mvn -o -q test-compile
 *   maven-surefire-plugin:3.5.2:test -Dtest=CSVFormatTest` on commons-csv passes in 13-18 s,
 *   as outside. Offline, with every artifact present, Maven only reads the repository; a missing
 *   artifact fails as it would outside (offline resolution error), not on the read-only mount.
 *   bwrap 0.8 has no overlay options (they came later), and none is needed.
 * - Java takes `user.home` from the password database, not $HOME: with the private home at
 *   /home/agent and HOME set to it, Maven never read its settings.xml and went online. So the
 *   private home is bound at the user's own home path (and -Duser.home is set as well).
 * - Run as root, bwrap keeps every capability inside: the agent could `umount` a masked directory
 *   and read what it hides (it did). `--cap-drop ALL` stops that (umount: must be superuser).
 */

/** Where the workspace is inside the sandbox. */
export const WORKSPACE_IN_SANDBOX = '/workspace';
/** Where the Maven repository is inside the sandbox. */
export const MAVEN_REPO_IN_SANDBOX = '/maven-repo';
/**
 * Debian's Maven repository of packaged jars (symlinks into /usr/share/java), visible with /usr.
 * Plain `mvn` never reads it, so masked directories are hidden there too.
 */
const SYSTEM_MAVEN_REPO = '/usr/share/maven-repo';
/** Top-level directories that merged-/usr systems make symlinks into /usr. */
const ROOT_LINKS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];
const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin';
/** Host variables passed through: harmless, and programs print differently without them. */
const PASSED_THROUGH = ['LANG', 'LC_ALL', 'TZ'];

export interface SandboxPolicy {
  /** Host directory bound read-write at WORKSPACE_IN_SANDBOX. */
  workspace: string;
  /**
   * The Maven repository, bound read-only at MAVEN_REPO_IN_SANDBOX. `masked` are repo-relative
   * directories shown empty (e.g. the project's own artifact, whose jar is the clean code).
   */
  mavenRepo?: { dir: string; masked: readonly string[] };
  /** Extra host paths visible at their own path, read-only. */
  readOnly?: readonly string[];
  /** Extra host paths visible at their own path, read-write (e.g. an adapter's scratch dir). */
  writable?: readonly string[];
  /** Share the host's network (an agent that calls a model endpoint); none otherwise. */
  network: boolean;
  /** Host directories visible read-only at their own path, first on PATH (the harness's `mvn`). */
  binDirs?: readonly string[];
  /** System directories shown empty (Debian's Maven and its jars, which hold corpus projects). */
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
   * The whole environment of the sandboxed process: HOME, PATH, JAVA_HOME, MAVEN_OPTS and a few
   * locale variables, then `extra` (API keys and the like). Nothing else of the host's.
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

function checkedMask(relative: string): string {
  const normal = path.posix.normalize(relative).replace(/\/+$/, '');
  if (path.isAbsolute(normal) || normal === '.' || normal === '' || normal.startsWith('..')) {
    throw new UserError(
      `a masked Maven repository directory must be repository-relative: ${relative}`,
    );
  }
  return normal;
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
  const reserved = [
    '/usr',
    '/etc',
    '/proc',
    '/dev',
    '/tmp',
    WORKSPACE_IN_SANDBOX,
    MAVEN_REPO_IN_SANDBOX,
  ];
  const clashes = reserved.some((dir) => isWithin(dir, home) || isWithin(home, dir));
  return path.isAbsolute(home) && home !== '/' && !clashes ? home : '/home/sandbox';
}

function mavenSettings(repository: string | undefined): string {
  // Offline always: a build inside must not depend on, or download from, the network.
  return [
    '<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">',
    ...(repository ? [`  <localRepository>${repository}</localRepository>`] : []),
    '  <offline>true</offline>',
    '  <interactiveMode>false</interactiveMode>',
    '</settings>',
    '',
  ].join('\n');
}

/** A host path as bound: its real location, shown at the path it was given as. */
interface Bound {
  source: string;
  dest: string;
}

interface Resolved {
  workspace: string;
  repo?: { dir: string; masked: string[] };
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
    ...(policy.mavenRepo && {
      repo: {
        dir: await existingRealPath('Maven repository', policy.mavenRepo.dir),
        masked: policy.mavenRepo.masked.map(checkedMask),
      },
    }),
    readOnly: await extras('read-only path', [
      ...(policy.readOnly ?? []),
      ...(policy.binDirs ?? []),
    ]),
    writable: await extras('writable path', policy.writable),
    hidden: (policy.hiddenSystemDirs ?? []).map((dir) => {
      if (!path.isAbsolute(dir) || !isWithin('/usr', dir) || dir === '/usr') {
        throw new UserError(`a hidden system directory must be under /usr: ${dir}`);
      }
      return path.resolve(dir);
    }),
  };
}

/**
 * An empty, read-only tmpfs over a directory (/dev/null over a file). One that does not exist on
 * the host has nothing to hide, and bwrap could not create its mount point in a read-only bind.
 */
function maskArgs(host: string, inside: string): string[] {
  if (!existsSync(host)) return [];
  return statSync(host).isDirectory()
    ? ['--tmpfs', inside, '--remount-ro', inside]
    : ['--ro-bind', '/dev/null', inside];
}

function mountArgs(resolved: Resolved, hostHome: string, home: string, network: boolean): string[] {
  const args = [...isolationArgs(network), ...systemArgs(), '--tmpfs', '/tmp'];
  args.push('--bind', hostHome, home);
  if (resolved.repo) {
    args.push('--ro-bind', resolved.repo.dir, MAVEN_REPO_IN_SANDBOX);
    for (const relative of resolved.repo.masked) {
      const inside = path.join(MAVEN_REPO_IN_SANDBOX, relative);
      args.push(...maskArgs(path.join(resolved.repo.dir, relative), inside));
      const system = path.join(SYSTEM_MAVEN_REPO, relative);
      args.push(...maskArgs(system, system));
    }
  }
  for (const dir of resolved.hidden) args.push(...maskArgs(dir, dir));
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
      const maven = mavenEnvironment();
      const env: NodeJS.ProcessEnv = {
        PATH: [
          ...(policy.binDirs ?? []).map((dir) => path.resolve(dir)),
          ...(maven.JAVA_HOME ? [path.join(maven.JAVA_HOME, 'bin')] : []),
          SANDBOX_PATH,
        ].join(':'),
        HOME: shared.home,
        TMPDIR: '/tmp',
        USER: path.basename(shared.home),
        ...(maven.JAVA_HOME && { JAVA_HOME: maven.JAVA_HOME }),
        MAVEN_OPTS: `${maven.MAVEN_OPTS ?? ''} -Duser.home=${shared.home}`.trim(),
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
 * A sandbox for one agent run: checks the paths, and makes the private home with a Maven
 * settings.xml (the in-sandbox repository, offline) so `mvn` inside needs no flags. Dispose it
 * after the run; one home per run keeps runs from leaving notes for each other.
 */
export async function createSandbox(policy: SandboxPolicy): Promise<Sandbox> {
  const bwrap = findOnPath('bwrap');
  if (!bwrap) throw new UserError('the agent sandbox needs bwrap (bubblewrap) on PATH');
  const resolved = await resolvePolicy(policy);
  const hostHome = await makeTempDir('sandbox-home');
  try {
    await mkdir(path.join(hostHome, '.m2'));
    await writeFile(
      path.join(hostHome, '.m2', 'settings.xml'),
      mavenSettings(resolved.repo ? MAVEN_REPO_IN_SANDBOX : undefined),
    );
  } catch (error) {
    await removeTree(hostHome);
    throw error;
  }
  return makeSandbox(policy, resolved, { bwrap, hostHome, home: homeInSandbox() });
}
