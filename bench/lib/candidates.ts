/**
 * Real validation candidates for the runner benchmarks: one-line mutants of production classes of
 * corpus projects, each paired with the usable test class named after that class (FooTest or
 * TestFoo tests Foo). Both runners validate the same candidates, so their verdicts and costs can
 * be compared side by side.
 */
import { isUsable } from '../../src/project/baseline.js';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { cacheLayout, resolveCacheDir, type CacheLayout } from '../../src/core/cache.js';
import { copyProjectTree, exists, makeTempDir, removeTree, sha256Text } from '../../src/core/fs.js';
import { seededRandom, shuffled } from '../../src/core/random.js';
import type { SingleVerdict } from '../../src/core/verdict.js';
import { applyLineMutant, lineMutants, type LineMutant } from '../../src/mutants/line-operators.js';
import { fetchCorpusProject } from '../../src/stages/0-corpus/fetch.js';
import type { FetchedProject } from '../../src/project/fetched.js';
import { loadRecipes, type Recipe } from '../../src/project/recipe.js';
import { timeLimit } from '../../src/runners/time-limits.js';
import { JvmRunner } from '../../src/toolchains/jvm/runner.js';
import { projectLayout, type ProjectLayout } from '../../src/toolchains/layout.js';
import { plainSink } from '../../src/events/render.js';
import { mavenToolchain } from '../../src/toolchains/maven/maven.js';

export interface Candidate extends LineMutant {
  id: string;
  project: string;
  testClass: string;
  /** Production source, relative to the project root. */
  file: string;
  /** The test class's time in the baseline, for the time limits. */
  baselineMs: number;
}

function productionFileFor(layout: ProjectLayout, testClass: string): string | undefined {
  const simple = testClass.slice(testClass.lastIndexOf('.') + 1);
  const pkg = testClass.slice(0, testClass.lastIndexOf('.')).replace(/\./g, '/');
  const match = /^(?:Test(.+)|(.+?)Tests?)$/.exec(simple);
  const name = match?.[1] ?? match?.[2];
  return name ? `${layout.mainSources}/${pkg}/${name}.java` : undefined;
}

export interface CorpusProject {
  recipe: Recipe;
  fetched: FetchedProject;
}

/** The named corpus projects (all of them when `names` is undefined), fetched and built. */
export async function corpusProjects(
  cache: CacheLayout,
  names: string[] | undefined,
): Promise<CorpusProject[]> {
  const recipes = (await loadRecipes()).filter((recipe) => !names || names.includes(recipe.name));
  const projects: CorpusProject[] = [];
  for (const recipe of recipes) {
    const fetched = await fetchCorpusProject(recipe, cache, {
      toolchain: mavenToolchain,
      events: plainSink((line) => process.stderr.write(`[${recipe.name}] ${line}\n`)),
    });
    projects.push({ recipe, fetched });
  }
  return projects;
}

export interface CandidateSample {
  /** The candidates both runners validate. */
  sample: Candidate[];
  /** Other candidates of the same projects, for warming the runner JVMs before timing. */
  warmUp: Candidate[];
}

const WARM_UP_POOL = 200;

/**
 * Up to `perProject` candidates per project, drawn with a seed so the sample can be redrawn, and
 * up to 200 more per project for warm-up. Each project draws from its own stream (seed and name),
 * so its candidates do not depend on which other projects are in the run. `testClasses`, when
 * given, keeps only the test classes whose name it matches.
 */
export async function sampleCandidates(
  projects: CorpusProject[],
  perProject: number,
  seed: number,
  testClasses?: RegExp,
): Promise<CandidateSample> {
  const sample: Candidate[] = [];
  const warmUp: Candidate[] = [];
  for (const { recipe, fetched } of projects) {
    const all: Candidate[] = [];
    for (const entry of fetched.baseline.classes.filter(isUsable)) {
      if (testClasses && !testClasses.test(entry.testClass)) continue;
      const file = productionFileFor(projectLayout(recipe.build), entry.testClass);
      if (!file || !(await exists(path.join(fetched.path, file)))) continue;
      const source = await readFile(path.join(fetched.path, file), 'utf8');
      for (const mutant of lineMutants(source)) {
        all.push({
          id: sha256Text(
            `${recipe.name}@${recipe.version}:${file}:${mutant.line}:${mutant.operator}:${entry.testClass}`,
          ).slice(0, 12),
          project: recipe.name,
          testClass: entry.testClass,
          file,
          ...mutant,
          baselineMs: entry.durationMs,
        });
      }
    }
    const random = seededRandom(parseInt(sha256Text(`${seed}:${recipe.name}`).slice(0, 8), 16));
    const drawn = shuffled(all, random);
    sample.push(...drawn.slice(0, perProject));
    warmUp.push(...drawn.slice(perProject, perProject + WARM_UP_POOL));
  }
  return { sample, warmUp };
}

async function mutatedText(projectRoot: string, candidate: Candidate): Promise<string> {
  return applyLineMutant(await readFile(path.join(projectRoot, candidate.file), 'utf8'), candidate);
}

export interface Validation {
  verdict: SingleVerdict;
  /** Includes `buildStepMs`. */
  compileMs: number;
  /** Build steps (generators) rerun or learnt for this candidate; the jvm runner reports it apart. */
  buildStepMs: number;
  loadMs: number;
  testMs: number;
  wallMs: number;
}

const MAVEN_COMPILE_LIMIT_MS = 600_000;

/** Ground truth: a fresh copy, the mutant written in, `mvn test-compile`, then Surefire. */
export async function validateWithMaven(
  project: CorpusProject,
  candidate: Candidate,
  cache: CacheLayout,
): Promise<Validation> {
  const started = performance.now();
  const workDir = await makeTempDir('bench-maven');
  const copy = path.join(workDir, 'project');
  try {
    await copyProjectTree(project.fetched.path, copy);
    await writeFile(
      path.join(copy, candidate.file),
      await mutatedText(project.fetched.path, candidate),
    );
    const context = { repository: cache.mavenRepo, offline: true };
    const build = project.recipe.build;
    const compiled = await mavenToolchain.compile(copy, build, context, MAVEN_COMPILE_LIMIT_MS);
    if (compiled.kind === 'Failed') {
      return {
        verdict: compiled.verdict,
        compileMs: compiled.durationMs,
        buildStepMs: 0,
        loadMs: 0,
        testMs: 0,
        wallMs: Math.round(performance.now() - started),
      };
    }
    const run = await mavenToolchain.runTests(copy, build, context, {
      selection: mavenToolchain.selectClass(candidate.testClass),
      timeoutMs: timeLimit('maven', 'run', candidate.baselineMs),
    });
    return {
      verdict: run.verdict,
      compileMs: compiled.durationMs,
      buildStepMs: 0,
      loadMs: 0,
      testMs: run.durationMs,
      wallMs: Math.round(performance.now() - started),
    };
  } finally {
    await removeTree(workDir);
  }
}

/**
 * The warm JVM: the mutant is written to a scratch directory and compiled into an overlay over
 * the project's classes; the project itself is a working copy made once per project (its tests
 * may write into their working directory).
 */
export async function validateInJvm(
  runner: JvmRunner,
  project: CorpusProject,
  workingCopy: string,
  candidate: Candidate,
): Promise<Validation> {
  const started = performance.now();
  const scratch = await makeTempDir('bench-jvm');
  try {
    const source = path.join(scratch, candidate.file);
    await mkdir(path.dirname(source), { recursive: true });
    await writeFile(source, await mutatedText(project.fetched.path, candidate));
    const result = await runner.run({
      projectDir: workingCopy,
      build: project.recipe.build,
      testClass: candidate.testClass,
      sources: [{ path: source, scope: 'main' }],
      timeoutMs: timeLimit('jvm', 'run', candidate.baselineMs),
    });
    return {
      verdict: result.verdict,
      ...result.timings,
      buildStepMs: result.buildSteps.rerunMs + result.buildSteps.learningMs,
      wallMs: Math.round(performance.now() - started),
    };
  } finally {
    await removeTree(scratch);
  }
}

export async function workingCopy(project: CorpusProject): Promise<string> {
  const copy = path.join(await makeTempDir(`bench-${project.recipe.name}`), 'project');
  await copyProjectTree(project.fetched.path, copy);
  return copy;
}

/** Verdict classes the runners must agree on. */
export function verdictClass(verdict: SingleVerdict): string {
  return verdict.kind === 'TestFailed' || verdict.kind === 'TestErrored' ? 'Exposed' : verdict.kind;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const format = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [format(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(format)].join(
    '\n',
  );
}

export interface SideBySide {
  candidate: Candidate;
  jvm: Validation;
  maven: Validation;
}

export interface SideBySideRun {
  rows: SideBySide[];
  /** Per project, the runner JVM's start and warm-up, outside the per-candidate figures. */
  warmUps: WarmUp[];
}

export interface WarmUp {
  project: string;
  candidates: number;
  ms: number;
}

/**
 * Validates warm-up candidates in the project's runner JVM, and discards the results, until
 * `budgetMs` has passed: a fresh JVM interprets javac and the test platform for its first few
 * hundred compiles, and a construction loop validates thousands of candidates, so the timed
 * figures should be those of a warm JVM (as JMH's warm-up iterations are for a benchmark).
 */
async function warmUp(
  runner: JvmRunner,
  project: CorpusProject,
  copy: string,
  pool: Candidate[],
  budgetMs: number,
): Promise<WarmUp> {
  const started = performance.now();
  let candidates = 0;
  for (const candidate of pool) {
    if (candidates > 0 && performance.now() - started >= budgetMs) break;
    await validateInJvm(runner, project, copy, candidate);
    candidates++;
  }
  return {
    project: project.recipe.name,
    candidates,
    ms: Math.round(performance.now() - started),
  };
}

/**
 * Every candidate through the warm JVM and through Maven, in one run, in the same order. Each
 * project's runner JVM is started and warmed first, as a construction loop starts it once for
 * thousands of candidates; that is reported on its own.
 */
export async function runSideBySide(
  projects: CorpusProject[],
  { sample, warmUp: warmUpPool }: CandidateSample,
  warmUpMs: number,
  cache: CacheLayout,
  runner: JvmRunner,
  log: (line: string) => void,
): Promise<SideBySideRun> {
  const rows: SideBySide[] = [];
  const warmUps: WarmUp[] = [];
  for (const project of projects) {
    const mine = sample.filter((c) => c.project === project.recipe.name);
    if (mine.length === 0) continue;
    const copy = await workingCopy(project);
    try {
      const pool = warmUpPool.filter((c) => c.project === project.recipe.name);
      const warmed = await warmUp(runner, project, copy, pool, warmUpMs);
      warmUps.push(warmed);
      log(`${project.recipe.name}: warm-up ${warmed.candidates} candidates in ${warmed.ms} ms`);
      for (const candidate of mine) {
        const jvm = await validateInJvm(runner, project, copy, candidate);
        const maven = await validateWithMaven(project, candidate, cache);
        rows.push({ candidate, jvm, maven });
        log(
          `${rows.length}/${sample.length} ${candidate.project} ${candidate.id} ${candidate.operator}: jvm ${jvm.verdict.kind} (${jvm.wallMs} ms), maven ${maven.verdict.kind} (${maven.wallMs} ms)`,
        );
      }
    } finally {
      await removeTree(path.dirname(copy));
    }
  }
  return { rows, warmUps };
}

/**
 * The shared command line of the runner benchmarks (`--projects a,b --per-project N --seed S
 * --warm-up-ms MS --test-classes REGEX --out rows.jsonl`): draws the candidates and runs them
 * side by side. Without `--projects`, every corpus project takes part; with `--test-classes`, only
 * the test classes whose name the expression matches (the ones that use mockito-inline, say).
 */
export async function sideBySideFromCommandLine(): Promise<SideBySideRun & { seed: number }> {
  const { values } = parseArgs({
    options: {
      projects: { type: 'string' },
      'per-project': { type: 'string', default: '30' },
      seed: { type: 'string', default: '1' },
      'warm-up-ms': { type: 'string', default: '10000' },
      'test-classes': { type: 'string' },
      out: { type: 'string' },
    },
  });
  const seed = Number(values.seed);
  const cache = cacheLayout(resolveCacheDir());
  const projects = await corpusProjects(cache, values.projects?.split(','));
  const testClasses = values['test-classes'];
  const candidates = await sampleCandidates(
    projects,
    Number(values['per-project']),
    seed,
    testClasses === undefined ? undefined : new RegExp(testClasses),
  );
  const runner = new JvmRunner(cache);
  try {
    const run = await runSideBySide(
      projects,
      candidates,
      Number(values['warm-up-ms']),
      cache,
      runner,
      (line) => process.stderr.write(`${line}\n`),
    );
    if (values.out) {
      await writeFile(values.out, run.rows.map((row) => JSON.stringify(row)).join('\n') + '\n');
    }
    return { ...run, seed };
  } finally {
    await runner.close();
  }
}
