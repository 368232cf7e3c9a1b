import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { UserError } from '../core/errors.js';
import { copyProjectTree, exists, removeAtStop, removeTree, writeFileAtomic } from '../core/fs.js';
import { runProcess } from '../core/process.js';
import { RepairInstanceSchema, type RepairInstance } from './instance.js';
import { hashTestId } from './test-names.js';

/*
 * Instance files: JSONL, one repair instance a line, read strictly (the first bad line stops the
 * read, naming file, line and field) and written canonically (equal instances, equal bytes).
 */

/** Fields SWE-bench's own instances carry that a run here has no use for: read and dropped. */
const SWE_BENCH_EXTRAS = ['version', 'created_at', 'hints_text', 'environment_setup_commit'];

/** The optional fields' values when a line leaves them out (fresh objects for each line). */
function defaults(): Partial<RepairInstance> {
  return {
    test_patch: '',
    problem_statement: '',
    module: '.',
    maven_flags: [],
    origin: { kind: 'swe-bench' },
  };
}

const TEST_LISTS = ['FAIL_TO_PASS', 'PASS_TO_PASS'] as const;

/** `FAIL_TO_PASS[0]`, `origin.kind`: where in an instance a problem is. */
function fieldPath(at: readonly PropertyKey[]): string {
  return at.reduce<string>(
    (text, key) =>
      typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key),
    '',
  );
}

function valueAt(value: unknown, at: readonly PropertyKey[]): unknown {
  return at.reduce<unknown>(
    (inner, key) =>
      inner !== null && typeof inner === 'object'
        ? (inner as Record<PropertyKey, unknown>)[key]
        : undefined,
    value,
  );
}

/**
 * One line saying what is wrong with `value` by a schema's verdict. Unknown fields go first: a
 * misspelt field is also a missing one, and its name says more.
 */
export function schemaProblem(error: z.ZodError, value: unknown): string {
  const issue =
    error.issues.find((candidate) => candidate.code === 'unrecognized_keys') ?? error.issues[0]!;
  const where = fieldPath(issue.path);
  const shown = valueAt(value, issue.path);
  if (issue.code === 'unrecognized_keys') {
    const fields = issue.keys.map((key) => JSON.stringify(key)).join(', ');
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${fields}${where ? ` in ${where}` : ''}`;
  }
  if (shown === undefined) return `${where || 'the instance'} is missing`;
  // The schema's own messages read on from the field: `… "foo" is not pkg.Class#method`.
  if (issue.code === 'invalid_format') return `${where} ${JSON.stringify(shown)} ${issue.message}`;
  if (issue.code === 'too_small') return `${where} ${issue.message}`;
  return `${where || 'the instance'}: ${issue.message}`;
}

/**
 * A line's object as the schema takes it: SWE-bench's extras dropped, its test lists decoded
 * when they are JSON-encoded strings, Defects4J's `Class::method` read as `Class#method`, and
 * the optional fields defaulted. Returns a problem instead when a test list cannot be decoded.
 */
function normalised(
  raw: Record<string, unknown>,
): { kind: 'Fields'; fields: Record<string, unknown> } | { kind: 'Problem'; problem: string } {
  const fields: Record<string, unknown> = { ...defaults(), ...raw };
  for (const extra of SWE_BENCH_EXTRAS) delete fields[extra];
  for (const list of TEST_LISTS) {
    let tests = fields[list];
    if (typeof tests === 'string') {
      let decoded: unknown;
      try {
        decoded = JSON.parse(tests);
      } catch {
        decoded = undefined;
      }
      if (!Array.isArray(decoded)) {
        return { kind: 'Problem', problem: `${list} is a string but not a JSON-encoded list` };
      }
      tests = decoded;
    }
    fields[list] = Array.isArray(tests)
      ? tests.map((test) => (typeof test === 'string' ? hashTestId(test) : test))
      : tests;
  }
  return { kind: 'Fields', fields };
}

/**
 * The instances of an instance file's text; `source` names the file in messages. Throws a
 * UserError at the first bad line, for a repeated instance id, or when there is no instance.
 */
export function parseInstances(text: string, source: string): RepairInstance[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const instances: RepairInstance[] = [];
  const lineOfId = new Map<string, number>();
  lines.forEach((line, index) => {
    const lineNumber = index + 1;
    const fail: (problem: string) => never = (problem) => {
      throw new UserError(`${source}:${lineNumber}: ${problem}`);
    };
    if (line.trim() === '') fail('blank line; an instance file holds one instance a line');
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (error) {
      fail(`not JSON (${(error as Error).message})`);
    }
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      fail('not a JSON object; each line is one instance');
    }
    const read = normalised(raw as Record<string, unknown>);
    if (read.kind === 'Problem') return fail(read.problem);
    const parsed = RepairInstanceSchema.safeParse(read.fields);
    if (!parsed.success) return fail(schemaProblem(parsed.error, read.fields));
    const id = parsed.data.instance_id;
    const earlier = lineOfId.get(id);
    if (earlier !== undefined) fail(`instance id "${id}" is already on line ${earlier}`);
    lineOfId.set(id, lineNumber);
    instances.push(parsed.data);
  });
  if (instances.length === 0) throw new UserError(`${source}: no instances`);
  return instances;
}

export async function readInstanceFile(file: string): Promise<RepairInstance[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new UserError(`instance file ${file} does not exist`);
    }
    throw error;
  }
  return parseInstances(text, file);
}

/**
 * Instances as an instance file holds them: sorted by id, each a plain SWE-bench-style object
 * whose keys (at every depth) come in the schema's order, whatever order they were given in.
 */
function formatInstances(instances: readonly RepairInstance[]): string {
  const canonical = instances.map((instance) => {
    const checked = RepairInstanceSchema.safeParse(instance);
    if (!checked.success) {
      throw new Error(
        `refusing to write instance ${instance.instance_id}: ${schemaProblem(checked.error, instance)}`,
      );
    }
    return checked.data;
  });
  canonical.sort((a, b) =>
    a.instance_id < b.instance_id ? -1 : a.instance_id > b.instance_id ? 1 : 0,
  );
  canonical.forEach((instance, index) => {
    if (index > 0 && canonical[index - 1]!.instance_id === instance.instance_id) {
      throw new Error(`refusing to write instance ${instance.instance_id} twice`);
    }
  });
  return canonical.map((instance) => `${JSON.stringify(instance)}\n`).join('');
}

export async function writeInstanceFile(
  file: string,
  instances: readonly RepairInstance[],
): Promise<void> {
  await writeFileAtomic(file, formatInstances(instances));
}

/** Where an instance's base tree is: a directory used as it is, or a tarball to unpack. */
export type Snapshot = { kind: 'Directory'; path: string } | { kind: 'Tarball'; path: string };

const TARBALL_SUFFIXES = ['.tar', '.tar.gz', '.tgz', '.tar.xz'];

/** The instance's snapshot, its path resolved against the instance file's directory. */
export async function resolveSnapshot(
  instance: RepairInstance,
  instanceFileDir: string,
): Promise<Snapshot> {
  const snapshot = path.resolve(instanceFileDir, instance.snapshot);
  const found = await stat(snapshot).catch(() => undefined);
  if (!found) {
    throw new UserError(
      `instance ${instance.instance_id}: its snapshot ${snapshot} does not exist (snapshot is relative to the instance file's directory)`,
    );
  }
  if (found.isDirectory()) return { kind: 'Directory', path: snapshot };
  if (found.isFile() && TARBALL_SUFFIXES.some((suffix) => snapshot.endsWith(suffix))) {
    return { kind: 'Tarball', path: snapshot };
  }
  throw new UserError(
    `instance ${instance.instance_id}: its snapshot ${snapshot} is neither a directory nor a ${TARBALL_SUFFIXES.join(', ')} file`,
  );
}

/** Members of a tarball that would land outside the directory it is extracted into. */
function escapingMembers(members: readonly string[]): string[] {
  return members.filter(
    (member) => member.startsWith('/') || member.split('/').some((part) => part === '..'),
  );
}

/**
 * How many leading path components to strip so the tree lands at the root: a tarball made of a
 * tree often holds it under one directory and nothing beside it (`git archive --prefix`, release
 * tarballs), which goes; tar counts a leading `./` as a component of its own.
 */
function wrapperComponents(members: readonly string[]): number {
  const dotted = members.every((member) => member.startsWith('./'));
  const names = members
    .map((member) => (dotted ? member.slice(2) : member))
    .filter((member) => member !== '');
  const tops = new Set(names.map((member) => member.split('/')[0]));
  const [only] = tops;
  const wrapped = tops.size === 1 && names.some((member) => member.startsWith(`${only}/`));
  return wrapped ? (dotted ? 2 : 1) : 0;
}

/**
 * Writes the snapshot's tree into `destination`, which must not exist yet: a directory is copied
 * (without `.git`), a tarball extracted by the system's tar (its members listed first: one with
 * an absolute path or a `..` is refused). The tree is completed beside `destination` and renamed
 * into place, so a destination that exists is whole.
 */
export async function unpackSnapshot(snapshot: Snapshot, destination: string): Promise<void> {
  const target = path.resolve(destination);
  // A rename replaces an empty directory: one that exists is refused first.
  if (await exists(target)) throw new Error(`cannot unpack a snapshot into ${target}: it exists`);
  const temporary = `${target}.tmp-${randomBytes(6).toString('hex')}`;
  removeAtStop(temporary);
  try {
    if (snapshot.kind === 'Directory') {
      await copyProjectTree(snapshot.path, temporary);
    } else {
      // Every member must be seen: the listing's middle is never dropped.
      const listed = await runProcess('tar', ['-tf', snapshot.path], {
        timeoutMs: 600_000,
        maxOutputBytes: 1024 * 1024 * 1024,
      });
      if (listed.truncated) throw new UserError(`snapshot ${snapshot.path}: too many members`);
      if (listed.exitCode !== 0) {
        throw new UserError(
          `snapshot ${snapshot.path} is not a readable tarball: ${listed.stderr.trim()}`,
        );
      }
      const members = listed.stdout.split('\n').filter((member) => member !== '');
      const escaping = escapingMembers(members);
      if (escaping.length > 0) {
        throw new UserError(
          `snapshot ${snapshot.path} has a member outside its tree (${JSON.stringify(escaping[0])}): refusing to extract it`,
        );
      }
      const strip = wrapperComponents(members);
      await mkdir(temporary, { recursive: true });
      const extracted = await runProcess(
        'tar',
        ['-xf', snapshot.path, '-C', temporary, '--no-same-owner', `--strip-components=${strip}`],
        { timeoutMs: 600_000 },
      );
      if (extracted.exitCode !== 0) {
        throw new Error(`tar could not extract ${snapshot.path}: ${extracted.stderr.trim()}`);
      }
    }
    await rename(temporary, target);
  } finally {
    await removeTree(temporary);
  }
}
