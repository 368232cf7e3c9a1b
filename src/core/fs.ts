import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, rmSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { killLiveProcessGroupsSync } from './process.js';

/** Writes through a sibling temporary file and a rename, so readers never see half a file. */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, content);
  await rename(temporary, file);
}

export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** A file's text, or undefined when it does not exist (any other read error is thrown). */
export async function readTextIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function sha256Text(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Temporary directories not yet removed, and working trees that are temporary in effect: a run
 * stopped by a signal removes them on its way out.
 */
const liveTempDirs = new Set<string>();
let signalHandlersInstalled = false;

/**
 * What a stop by signal does before the process ends, never throwing (the process must still
 * end by its signal): the processes it started are killed, then its temporary trees removed.
 */
export function cleanUpForStop(): void {
  // A Maven still writing into a tree makes its removal fail (ENOTEMPTY): processes go first.
  killLiveProcessGroupsSync();
  for (const dir of liveTempDirs) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    } catch (error) {
      process.stderr.write(`witnessgym: stopping: ${dir} is left behind: ${String(error)}\n`);
    }
  }
  liveTempDirs.clear();
}

function cleanUpAndReraise(signal: NodeJS.Signals): void {
  cleanUpForStop();
  process.removeListener('SIGINT', cleanUpAndReraise);
  process.removeListener('SIGTERM', cleanUpAndReraise);
  signalHandlersInstalled = false;
  // The default action (ending the process) applies once this handler is gone.
  process.kill(process.pid, signal);
}

/** Removes `dir` if the process is stopped by a signal before removeTree removes it. */
export function removeAtStop(dir: string): void {
  if (!signalHandlersInstalled) {
    process.once('SIGINT', cleanUpAndReraise);
    process.once('SIGTERM', cleanUpAndReraise);
    signalHandlersInstalled = true;
  }
  liveTempDirs.add(dir);
}

export async function makeTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `witnessgym-${prefix}-`));
  removeAtStop(dir);
  return dir;
}

/**
 * Copies a project tree. Timestamps are kept so Maven's stale-file checks see only what changed;
 * entries with an excluded name (version-control metadata by default) are left behind.
 */
export async function copyProjectTree(
  source: string,
  destination: string,
  excludedNames: readonly string[] = ['.git'],
): Promise<void> {
  await cp(source, destination, {
    recursive: true,
    preserveTimestamps: true,
    verbatimSymlinks: true,
    filter: (from) => !excludedNames.includes(path.basename(from)),
  });
}

export async function removeTree(target: string): Promise<void> {
  await rm(target, { recursive: true, force: true });
  liveTempDirs.delete(target);
}
