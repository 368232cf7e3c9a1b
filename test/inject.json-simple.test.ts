import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { copyProjectTree, makeTempDir, removeTree } from '../src/core/fs.js';
import { runProcess } from '../src/core/process.js';
import { loadJavaGrammar } from '../src/lang/java/syntax.js';
import {
  pristineState,
  resolveFetchedProject,
  type FetchedProjectRef,
} from '../src/project/project.js';
import { materialise } from '../src/project/state.js';
import { silent } from '../src/events/types.js';
import { WorkingCopy } from '../src/project/working-copy.js';
import { witnessContexts } from '../src/stages/2-inject/contexts.js';
import type { InjectionRecord, InjectSummary } from '../src/stages/2-inject/records.js';
import { injectorFor } from '../src/stages/2-inject/rules/index.js';
import { loadBugTypeSpecs, type BugTypeSpec } from '../src/stages/2-inject/spec.js';
import { INJECTION_CHECKS, InjectionValidator } from '../src/stages/2-inject/validate.js';
import { JvmRunner } from '../src/toolchains/jvm/runner.js';
import { mavenToolchain } from '../src/toolchains/maven/maven.js';
import { cli, editedCopy, fetchCorpus, progressLines, readLines } from './helpers.js';

/* Real injections on json-simple, validated end to end (fast runner and Maven). */

const TYPES = 'npe_collection_element_lazily_nullified,logic_predicate_inversion_in_guard';
const JSONER = 'src/main/java/org/json/simple/Jsoner.java';
const WITNESS = 'org.json.simple.JsonerTest';

let pristine: string;
let out: string;
let summary: InjectSummary;
let accepted: InjectionRecord[];

/** The run the tests look at; run again, it must resume. */
function injectIntoOut() {
  return cli([
    'inject',
    'json-simple',
    '--types',
    TYPES,
    '--count',
    '2',
    '--seed',
    '7',
    '--out',
    out,
    '--json',
  ]);
}

beforeAll(async () => {
  pristine = await fetchCorpus('json-simple');
  out = path.join(await makeTempDir('inject-test'), 'out');
  const result = await injectIntoOut();
  expect(result.exitCode, result.stderr).toBe(0);
  summary = result.json as InjectSummary;
  accepted = await readLines<InjectionRecord>(path.join(out, 'injections.jsonl'));
});

describe('inject json-simple (rules engine)', () => {
  it('accepts the requested count per type, each with its evidence', () => {
    expect(summary.types.map((t) => [t.typeId, t.accepted])).toEqual([
      ['npe_collection_element_lazily_nullified', 2],
      ['logic_predicate_inversion_in_guard', 2],
    ]);
    expect(accepted).toHaveLength(4);
    for (const record of accepted) {
      expect(record.evidence.runs).toHaveLength(3);
      expect(
        record.evidence.runs.every((kind) => kind === 'TestFailed' || kind === 'TestErrored'),
      ).toBe(true);
      expect(['TestFailed', 'TestErrored']).toContain(record.evidence.maven);
      expect(record.evidence.reachedAs).toContain(record.evidence.touched[0]!.name);
      expect(record.site.file.startsWith('src/main/java/')).toBe(true);
      expect(record.state.patches).toHaveLength(1);
      expect(record.state.patches[0]!.diff).toContain(`--- a/${record.site.file}`);
      expect(record.state.base.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(record.checks.map((check) => [check.check, check.kind])).toEqual(
        INJECTION_CHECKS.map((check) => [check, 'Passed']),
      );
    }
    const rate = summary.types[0]!.accepted / summary.types[0]!.tried;
    expect(summary.types[0]!.acceptanceRate).toBeCloseTo(rate);
  });

  it('records buggy states that git applies to the pristine tree, the tool materialises alike, and fail their witness under witnessgym replay', async () => {
    for (const record of accepted.slice(0, 2)) {
      const work = await makeTempDir('buggy');
      const copy = path.join(work, 'project');
      await copyProjectTree(pristine, copy, []);
      await writeFile(path.join(work, 'bug.patch'), record.state.patches[0]!.diff);
      const applied = await runProcess('git', ['apply', path.join(work, 'bug.patch')], {
        cwd: copy,
      });
      expect(applied.exitCode, applied.stderr).toBe(0);
      const materialised = path.join(work, 'materialised');
      await materialise(record.state, pristine, materialised);
      expect(await readFile(path.join(materialised, record.site.file), 'utf8')).toBe(
        await readFile(path.join(copy, record.site.file), 'utf8'),
      );
      const replay = await cli([
        'replay',
        copy,
        '--recipe',
        'json-simple',
        '--test',
        record.witness.testClass,
        '--json',
      ]);
      expect(replay.exitCode).toBe(1);
      expect(['TestFailed', 'TestErrored']).toContain(
        (replay.json as { verdict: { kind: string } }).verdict.kind,
      );
      await removeTree(work);
    }
  });

  it('gives the same ids for the same seed and resumes instead of redoing work', async () => {
    const again = await injectIntoOut();
    expect(again.exitCode, again.stderr).toBe(0);
    const resumed = again.json as InjectSummary;
    expect(resumed.types.map((t) => [t.accepted, t.tried])).toEqual(
      summary.types.map((t) => [t.accepted, t.tried]),
    );
    // The resumed run's summary keeps the time the first run spent, not only its own.
    for (const [index, type] of resumed.types.entries()) {
      expect(type.durationMs).toBeGreaterThanOrEqual(summary.types[index]!.durationMs);
    }
    expect(await readLines<InjectionRecord>(path.join(out, 'injections.jsonl'))).toHaveLength(4);
  });

  it('decides again the candidate whose line an interrupted run cut short, and says so', async () => {
    const file = path.join(out, 'injections.jsonl');
    const text = await readFile(file, 'utf8');
    const lines = text.trimEnd().split('\n');
    await writeFile(file, `${lines.slice(0, -1).join('\n')}\n${lines.at(-1)!.slice(0, 50)}`);
    const again = await injectIntoOut();
    expect(again.exitCode, again.stderr).toBe(0);
    expect(progressLines(again)).toContainEqual(
      `inject: ${file}:4 was cut short by an interrupted run; its candidate is decided again`,
    );
    const records = await readLines<InjectionRecord>(file);
    expect(records.map((record) => record.id).sort()).toEqual(
      accepted.map((record) => record.id).sort(),
    );
  });

  it('reports usage mistakes in one line with exit code 2 and writes nothing', async () => {
    const bad = path.join(out, '..', 'never');
    const unknownType = await cli([
      'inject',
      'json-simple',
      '--types',
      'no_such_type',
      '--out',
      bad,
    ]);
    expect(unknownType.exitCode).toBe(2);
    expect(unknownType.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknownType.stderr).toContain("unknown bug type 'no_such_type'");
    const unknownTest = await cli([
      'inject',
      'json-simple',
      '--types',
      'all',
      '--test',
      'org.Nope',
      '--out',
      bad,
    ]);
    expect(unknownTest.exitCode).toBe(2);
    expect(unknownTest.stderr).toContain('org.Nope');
    await expect(readFile(path.join(bad, 'summary.json'))).rejects.toThrow();
  });
});

describe('inject on a path fetched with corpus fetch <path>', () => {
  it('uses the fetched copy, its baseline and map, and skips a --test class that fails', async () => {
    const local = await editedCopy(pristine, [
      {
        file: 'src/test/java/org/json/simple/YylexTest.java',
        from: 'public void testLexingNegativeNumber() throws IOException, DeserializationException{',
        to: 'public void testLexingNegativeNumber() throws IOException, DeserializationException{ org.junit.Assert.fail("broken on purpose");',
      },
    ]);
    const fetched = await cli(['corpus', 'fetch', local, '--json']);
    expect(fetched.exitCode, fetched.stderr).toBe(0);
    const localOut = path.join(path.dirname(out), 'local-out');
    const result = await cli([
      'inject',
      local,
      '--types',
      'logic_predicate_inversion_in_guard',
      '--count',
      '1',
      '--test',
      'org.json.simple.YylexTest',
      '--test',
      WITNESS,
      '--out',
      localOut,
      '--json',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(progressLines(result)).toContainEqual(
      expect.stringMatching(
        /^inject: --test org\.json\.simple\.YylexTest cannot be a witness, skipped: on clean code: TestFailed/,
      ),
    );
    const [record] = await readLines<InjectionRecord>(path.join(localOut, 'injections.jsonl'));
    expect(record!.state.base).toMatchObject({
      name: 'project',
      version: expect.stringMatching(/^local-/),
    });
    expect(record!.witness.testClass).toBe(WITNESS);
    expect((result.json as InjectSummary).project).toMatch(/^project@local-/);
  });

  it('asks for corpus fetch first when the path was never fetched', async () => {
    const unfetched = await editedCopy(pristine, []);
    const result = await cli([
      'inject',
      unfetched,
      '--types',
      'all',
      '--out',
      path.join(unfetched, 'out'),
    ]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`run 'witnessgym corpus fetch ${unfetched}' first`);
  });
});

describe('validation rejects candidates with the reason', () => {
  let project: FetchedProjectRef;
  let validator: InjectionValidator;
  let runner: JvmRunner;
  let copy: WorkingCopy;
  let specs: BugTypeSpec[];
  let source: string;

  beforeAll(async () => {
    await loadJavaGrammar();
    const cache = cacheLayout(resolveCacheDir());
    project = await resolveFetchedProject('json-simple', cache);
    const contexts = await witnessContexts(project, cache, silent);
    copy = await WorkingCopy.create(
      project.root,
      pristineState(project),
      project.layout,
      'validate-test',
    );
    runner = new JvmRunner(cache);
    validator = new InjectionValidator({
      cache,
      project,
      copy,
      jvm: runner,
      toolchain: mavenToolchain,
      contexts,
      collateralLimit: 5,
      fastRuns: 3,
      mavenCheck: true,
    });
    specs = await loadBugTypeSpecs();
    source = await readFile(path.join(project.root, JSONER), 'utf8');
  });
  afterAll(async () => {
    await validator.close();
    await runner.close();
    await copy.close();
  });

  /** Validates a change of Jsoner (or `file`) as a bug of the type `typeId`. */
  const validateAs = (typeId: string, after: string, file = JSONER) => {
    const spec = specs.find((s) => s.id === typeId)!;
    return validator.validate(spec, injectorFor(spec.id), WITNESS, pristineState(project), [
      { file, before: source, after },
    ]);
  };
  const INVERSION = 'logic_predicate_inversion_in_guard';
  const MISROUTE = 'logic_deep_branch_collection_misroute';
  const PUT = 'parent.put(key, token.getValue());';

  it('a comment-only change', async () => {
    const outcome = await validateAs(
      INVERSION,
      source.replace('final int characters', '/* note */ final int characters'),
    );
    expect(outcome).toMatchObject({ kind: 'Rejected', stage: 'diff' });
  });

  it('a change outside the production sources', async () => {
    const outcome = await validateAs(
      INVERSION,
      source.replace('i < characters', 'i <= characters'),
      'src/test/java/Jsoner.java',
    );
    expect(outcome).toMatchObject({ kind: 'Rejected', stage: 'diff' });
  });

  it('a change of another type', async () => {
    const outcome = await validateAs(INVERSION, source.replace('i < characters', 'i < i'));
    expect(outcome).toMatchObject({ kind: 'Rejected', stage: 'structure' });
  });

  it('a change that renames a public method', async () => {
    const outcome = await validateAs(
      INVERSION,
      source
        .replace('public static String escape(', 'public static String escaped(')
        .replace('i < characters', 'i <= characters'),
    );
    expect(outcome).toMatchObject({ kind: 'Rejected', stage: 'signature' });
  });

  it('a change that does not compile', async () => {
    // A write in a loop misrouted to a key the map's key type does not take.
    const outcome = await validateAs(
      MISROUTE,
      source.replace(PUT, 'parent.put(0.5, token.getValue());'),
    );
    expect(outcome).toMatchObject({ kind: 'Rejected', stage: 'compile' });
  });

  it('a change the witness does not expose, with the clean file restored afterwards', async () => {
    // The key moved to an equal one: a misroute that changes nothing.
    const after = source.replace(PUT, 'parent.put(key.toString(), token.getValue());');
    const outcome = await validateAs(MISROUTE, after);
    expect(outcome).toMatchObject({ kind: 'Rejected', stage: 'not-exposed' });
    expect(await readFile(path.join(copy.root, JSONER), 'utf8')).toBe(source);
  });

  it('accepts a real bug, with its failure signature and the member the witness entered', async () => {
    const outcome = await validateAs(
      INVERSION,
      source.replace('i < characters', 'i <= characters'),
    );
    expect(outcome.kind, JSON.stringify(outcome)).toBe('Accepted');
    if (outcome.kind !== 'Accepted') return;
    // One index past the end: charAt throws, the witness errors rather than fails.
    expect(outcome.evidence.failure.kind).toBe('TestErrored');
    expect(outcome.evidence.reachedAs).toContain('Jsoner.escape');
    expect(outcome.evidence.maven).toBe('TestErrored');
  });
});
