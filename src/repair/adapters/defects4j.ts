import { sidePath } from '../../core/diff-stats.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parsePatch } from 'diff';
import { errorMessage, UserError } from '../../core/errors.js';
import { RepairInstanceSchema, TEST_ID_PATTERN, type RepairInstance } from '../instance.js';
import { reversePatch, withGitPrefixes } from '../patch.js';
import { schemaProblem } from '../read.js';
import { hashTestId } from '../test-names.js';

/*
 * A Defects4J bug as a repair instance, from the bug's project folder in Defects4J's own layout
 * (framework/projects/<Project>): `active-bugs.csv`, `patches/<id>.src.patch` (fixed → buggy)
 * and `trigger_tests/<id>` (`--- pkg.Class::method` lines, each followed by its failure).
 */

export interface Defects4jBug {
  /** The project folder, e.g. `…/framework/projects/Csv`; its name is the project's. */
  metadataDir: string;
  bug: number;
  /** The buggy checkout (`defects4j checkout -v <id>b`), as the instance file will name it. */
  snapshot: string;
}

/** What `active-bugs.csv` says of a bug. */
interface ActiveBug {
  buggyRevision: string;
  reportId: string;
  reportUrl: string;
}

async function readOrRefuse(file: string, missing: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new UserError(missing);
    throw error;
  }
}

async function activeBug(metadataDir: string, project: string, bug: number): Promise<ActiveBug> {
  const csv = path.join(metadataDir, 'active-bugs.csv');
  const text = await readOrRefuse(
    csv,
    `${metadataDir} is not a Defects4J project folder: it has no active-bugs.csv`,
  );
  const [header, ...rows] = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const columns = (header ?? '').split(',');
  const wanted = ['bug.id', 'revision.id.buggy', 'report.id', 'report.url'] as const;
  const at = Object.fromEntries(wanted.map((name) => [name, columns.indexOf(name)])) as Record<
    (typeof wanted)[number],
    number
  >;
  const absent = wanted.find((name) => at[name] === -1);
  if (absent) throw new UserError(`${csv}: its header has no ${absent} column`);
  for (const [index, row] of rows.entries()) {
    const fields = row.split(',');
    if (fields.length !== columns.length) {
      throw new UserError(`${csv}:${index + 2}: ${fields.length} fields, not ${columns.length}`);
    }
    if (fields[at['bug.id']] !== String(bug)) continue;
    return {
      buggyRevision: fields[at['revision.id.buggy']]!,
      reportId: fields[at['report.id']]!,
      reportUrl: fields[at['report.url']]!,
    };
  }
  throw new UserError(`bug ${bug} is not among ${project}'s active bugs (${csv})`);
}

/** The tests a trigger_tests file names, as `pkg.Class#method`, in its order. */
export function triggerTests(text: string, source: string): string[] {
  const tests: string[] = [];
  for (const [index, line] of text.split(/\r?\n/).entries()) {
    if (!line.startsWith('--- ')) continue;
    const test = hashTestId(line.slice(4).trim());
    if (!TEST_ID_PATTERN.test(test)) {
      throw new UserError(`${source}:${index + 1}: "${line.slice(4)}" is not pkg.Class::method`);
    }
    if (!tests.includes(test)) tests.push(test);
  }
  if (tests.length === 0) throw new UserError(`${source}: no "--- pkg.Class::method" line`);
  return tests;
}

/** `owner/name` of a GitHub report URL; other trackers (JIRA, Google Code) name no repository. */
function githubRepository(url: string): string | undefined {
  const match = /^https?:\/\/github\.com\/([^/]+)\/([^/]+)/.exec(url);
  return match ? `${match[1]}/${match[2]}` : undefined;
}

/**
 * The Maven module the patch changes, from its paths: what comes before their `src/` when all
 * agree (Gson's patches change `gson/src/main/java/…`), else the root. Defects4J's patches are
 * relative to the repository's root.
 */
function moduleOf(patch: string): string {
  const modules = new Set<string>();
  for (const file of parsePatch(patch)) {
    const name = [file.newFileName, file.oldFileName].find((n) => n && n !== '/dev/null');
    const relative = sidePath(name) ?? '';
    const at = relative.startsWith('src/') ? 0 : relative.indexOf('/src/');
    modules.add(at <= 0 ? '.' : relative.slice(0, at));
  }
  const [only] = modules;
  return modules.size === 1 && only ? only : '.';
}

export async function fromDefects4j({
  metadataDir,
  bug,
  snapshot,
}: Defects4jBug): Promise<RepairInstance> {
  if (!Number.isInteger(bug) || bug < 1) {
    throw new UserError(`Defects4J bug ids are positive integers, not ${bug}`);
  }
  const project = path.basename(path.resolve(metadataDir));
  const row = await activeBug(metadataDir, project, bug);
  const patchFile = path.join(metadataDir, 'patches', `${bug}.src.patch`);
  const stored = await readOrRefuse(patchFile, `${project} bug ${bug} has no ${patchFile}`);
  let gold: string;
  try {
    // Stored fixed → buggy; an svn diff among them names its files without git's a/ and b/.
    gold = reversePatch(withGitPrefixes(stored));
  } catch (error) {
    throw new UserError(`${patchFile}: ${errorMessage(error)}`);
  }
  const triggerFile = path.join(metadataDir, 'trigger_tests', String(bug));
  const triggers = triggerTests(
    await readOrRefuse(triggerFile, `${project} bug ${bug} has no ${triggerFile}`),
    triggerFile,
  );
  const reported = row.reportId !== 'UNKNOWN' && row.reportUrl !== 'UNKNOWN';
  const instance = {
    instance_id: `${project}-${bug}`,
    repo: githubRepository(row.reportUrl) ?? project,
    // The revision the bug was fixed from; the checkout is the fixed revision with the bug put
    // back (see below), which is what `snapshot` holds.
    base_commit: row.buggyRevision,
    snapshot,
    patch: gold,
    // Defects4J's buggy checkout is the fixed revision with the bug put back, so it already
    // holds the tests that trigger the bug: there is nothing to add.
    test_patch: '',
    FAIL_TO_PASS: triggers,
    // Defects4J lists no tests that must keep passing (it runs the whole suite); none are named.
    PASS_TO_PASS: [],
    problem_statement: reported ? `${row.reportId}: ${row.reportUrl}` : '',
    module: moduleOf(gold),
    maven_flags: [],
    origin: { kind: 'defects4j', project, bug },
  };
  const checked = RepairInstanceSchema.safeParse(instance);
  if (!checked.success) {
    throw new UserError(`${project} bug ${bug}: ${schemaProblem(checked.error, instance)}`);
  }
  return checked.data;
}
