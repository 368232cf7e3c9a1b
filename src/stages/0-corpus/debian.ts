import { copyFile, mkdir, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import { downloadsLock, type CacheLayout } from '../../core/cache.js';
import { UserError } from '../../core/errors.js';
import { exists, makeTempDir, removeTree, sha256File, writeFileAtomic } from '../../core/fs.js';
import { withLock } from '../../records/lock.js';
import { lastLine, runProcess } from '../../core/process.js';

/*
 * Debian source packages are fetched with apt-get against a private apt state directory inside
 * the cache: the machine's own apt configuration (which often lacks deb-src lines) is neither
 * needed nor modified, and no root rights are required.
 */

const SYSTEM_SOURCES = '/etc/apt/sources.list.d/debian.sources';
const FALLBACK_SOURCES: SourceEntry[] = [
  { uri: 'http://deb.debian.org/debian', suites: ['bookworm', 'bookworm-updates'] },
  { uri: 'http://deb.debian.org/debian-security', suites: ['bookworm-security'] },
];
/** Source indexes are refreshed when older than this. */
const INDEX_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

interface SourceEntry {
  uri: string;
  suites: string[];
}

/** Mirrors and suites the machine already uses (deb822 format), so downloads hit the same mirror. */
async function configuredSources(): Promise<SourceEntry[]> {
  let text: string;
  try {
    text = await readFile(SYSTEM_SOURCES, 'utf8');
  } catch {
    return FALLBACK_SOURCES;
  }
  const entries: SourceEntry[] = [];
  for (const stanza of text.split(/\n\s*\n/)) {
    const uri = /^URIs:\s*(\S+)/m.exec(stanza)?.[1];
    const suites = /^Suites:\s*(.+)$/m.exec(stanza)?.[1]?.trim().split(/\s+/);
    if (uri && suites) entries.push({ uri, suites });
  }
  return entries.length > 0 ? entries : FALLBACK_SOURCES;
}

function aptOptions(aptDir: string): string[] {
  return [
    '-o',
    `Dir::State=${path.join(aptDir, 'state')}`,
    '-o',
    `Dir::Cache=${path.join(aptDir, 'cache')}`,
    '-o',
    `Dir::Etc::SourceList=${path.join(aptDir, 'sources.list')}`,
    '-o',
    'Dir::Etc::SourceParts=/dev/null',
    '-o',
    'Dir::State::status=/var/lib/dpkg/status',
    '-o',
    'Debug::NoLocking=1',
    '-o',
    'APT::Sandbox::User=root',
  ];
}

async function ensureSourceIndex(aptDir: string): Promise<void> {
  const stamp = path.join(aptDir, 'updated-at');
  if (await exists(stamp)) {
    const updatedAt = Number(await readFile(stamp, 'utf8'));
    if (Date.now() - updatedAt < INDEX_MAX_AGE_MS) return;
  }
  for (const dir of ['state/lists/partial', 'cache/archives/partial']) {
    await mkdir(path.join(aptDir, dir), { recursive: true });
  }
  const lines = (await configuredSources()).flatMap((entry) =>
    entry.suites.map((suite) => `deb-src ${entry.uri} ${suite} main`),
  );
  await writeFileAtomic(path.join(aptDir, 'sources.list'), `${lines.join('\n')}\n`);
  const run = await runProcess('apt-get', [...aptOptions(aptDir), 'update'], {
    timeoutMs: 600_000,
  });
  if (run.exitCode !== 0) {
    throw new UserError(
      `cannot read Debian source indexes (apt-get update failed: ${lastLine(run.stderr)}); check that the Debian mirror is reachable`,
    );
  }
  await writeFileAtomic(stamp, String(Date.now()));
}

export interface DebianSource {
  package: string;
  version: string;
  file: string;
  sha256: string;
}

/**
 * Downloads the upstream tarball of a Debian source package into `downloads/` and verifies its
 * checksum; an already verified download is reused. Returns the tarball's path.
 */
export async function downloadDebianSource(
  source: DebianSource,
  cache: CacheLayout,
  log: (line: string) => void,
): Promise<string> {
  const target = path.join(cache.downloads, source.file);
  if ((await exists(target)) && (await sha256File(target)) === source.sha256) return target;
  return withLock(downloadsLock(cache), { purpose: `download ${source.file}`, log }, async () => {
    // Another process may have fetched it while this one waited.
    if ((await exists(target)) && (await sha256File(target)) === source.sha256) return target;
    return download(source, cache.apt, target);
  });
}

async function download(source: DebianSource, aptDir: string, target: string): Promise<string> {
  await ensureSourceIndex(aptDir);
  const work = await makeTempDir('apt');
  try {
    // Some packages' Debian diffs are missing on the mirror; only the upstream tarball matters,
    // so apt's exit code is not trusted either way: the checksum of the file decides.
    const run = await runProcess(
      'apt-get',
      [...aptOptions(aptDir), 'source', '--download-only', `${source.package}=${source.version}`],
      { cwd: work, timeoutMs: 600_000 },
    );
    const downloaded = path.join(work, source.file);
    if (!(await exists(downloaded))) {
      throw new UserError(
        `cannot download ${source.file} from Debian source package ${source.package}=${source.version}: ${lastLine(run.stderr) || lastLine(run.stdout)}`,
      );
    }
    const actual = await sha256File(downloaded);
    if (actual !== source.sha256) {
      throw new UserError(
        `checksum mismatch for ${source.file}: expected ${source.sha256}, got ${actual}; the recipe pins another upstream tarball`,
      );
    }
    await mkdir(path.dirname(target), { recursive: true });
    // The temporary directory may be on another file system: copy, then rename into place.
    await copyFile(downloaded, `${target}.tmp`);
    await rename(`${target}.tmp`, target);
    return target;
  } finally {
    await removeTree(work);
  }
}
