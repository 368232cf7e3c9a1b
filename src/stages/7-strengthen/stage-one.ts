import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import { ensureJacoco, jacocoAgentArg, readLineCoverage } from '../../coverage/jacoco.js';
import { makeTempDir, readTextIfExists, removeTree, sha256Text } from '../../core/fs.js';
import { seededRandom, shuffled } from '../../core/random.js';
import { describeVerdict, type CompileMessage, type Verdict } from '../../core/verdict.js';
import { loadJavaGrammar, methodsAtLines } from '../../lang/java/syntax.js';
import { patchOf, withPatch, type ProjectState } from '../../project/state.js';
import { compiledSources, type WorkingCopy } from '../../project/working-copy.js';
import { instanceTestClasses } from '../../repair/instance.js';
import { patchFromDiff, withTests, type RepairSubject } from '../../repair/project.js';
import type { GoldAlternative } from './alternatives.js';
import type { TestRunner } from '../../runners/types.js';
import { withReruns } from '../../runners/wrappers.js';
import { baseTestMethod } from '../../core/test-reports.js';
import { finalClass, keepOnly, methodsOf } from './amplify/assertions.js';
import { parseObservations, stableObservations, type Observation } from './amplify/observations.js';
import { observeSourceRoot, probeClass } from './amplify/probes.js';
import {
  asIsVariant,
  inputVariants,
  testMethods,
  type InputVariant,
  type TestMethod,
} from './amplify/variants.js';
import { callAfter, callTargets, callVariants, type CallTarget } from './amplify/calls.js';
import type { TestFramework } from './amplify/test-class.js';
import type { BuildSettings } from '../../toolchains/build-settings.js';
import { packagePattern, sourceRootRelative, type SliceCoverage } from './coverage.js';

/*
 * Stage I's deterministic engine (DSpot's amplification, SWE-ABS's coverage-driven stage): vary
 * the inputs of the instance's own tests or add a call to a method holding a missed line
 * (amplify/calls.ts), run the variants as probes on gold (three fresh Maven runs, and one more
 * under another locale and time zone), keep the variants whose run covers relevant lines the
 * suite missed (greedily, the fewest that cover the most), write assertions from what gold did
 * the same way in every run, and keep a new test only if it passes on gold in three fresh runs
 * and compiles against the base tree (it calls no API only gold has).
 */

/** Variants tried per test method, and per test class at most. */
const VARIANTS_PER_METHOD = 4;
const VARIANTS_PER_CLASS = 40;
/**
 * Calls to the slice's methods added per test method (and one after each input variant), and
 * per test class at most.
 */
const CALLS_PER_METHOD = 3;
const CALLS_PER_CLASS = 32;
/** Flags of the run that must agree with the others: a Turkish locale, a far time zone. */
export const FOREIGN_LOCALE_ARGS = [
  '-Duser.language=tr',
  '-Duser.country=TR',
  '-Duser.timezone=Pacific/Chatham',
];
/** Observe.java, relative to its source root and to the test sources it is compiled with. */
export const OBSERVE_FILE = 'witnessgym/probe/Observe.java';

export interface AmplifiedClass {
  /** The new class's binary name and project-relative file. */
  testClass: string;
  file: string;
  source: string;
  methods: string[];
  /** Which original test each method varies, and how. */
  provenance: { method: string; from: string; operator: string; detail: string }[];
}

/** A candidate left behind, and the gate that left it. */
export interface StageOneLoss {
  gate:
    | 'not-a-test-class'
    | 'probe-compile'
    | 'probe-run'
    | 'no-new-coverage'
    | 'no-stable-oracle'
    | 'final-compile'
    | 'fails-on-gold'
    | 'api-rule'
    /** Fails on a correct alternative of gold (gold rewritten by a behaviour-preserving operator). */
    | 'guard'
    /** The agent engine: a file the agent wrote or changed that is not a new strengthened test class. */
    | 'not-a-new-test-class'
    /** Stage II: fails on no surviving mutant in every one of 3 runs. */
    | 'kills-no-mutant'
    /** Stage II: kills only mutants that the fewest killing tests already kill. */
    | 'not-needed';
  tests: string[];
  detail: string;
}

export type StageOneOutcome =
  | { kind: 'NothingMissed' }
  | {
      kind: 'Amplified';
      classes: AmplifiedClass[];
      variantsTried: number;
      losses: StageOneLoss[];
    };

export interface AmplifySetup {
  cache: CacheLayout;
  maven: TestRunner;
  copy: WorkingCopy;
  seed: number;
  /** Gold's correct alternatives the guard runs the new tests on (made on first call). */
  guard: () => Promise<readonly GoldAlternative[]>;
}

export interface SourceClass {
  testClass: string;
  file: string;
  source: string;
  framework: TestFramework;
  newClass: string;
  newFile: string;
  variants: InputVariant[];
  /** The probe (and final) method of each variant, by position. */
  probeNames: string[];
}

export function simpleName(binary: string): string {
  return binary.slice(binary.lastIndexOf('.') + 1);
}

/** Whether a compiler message (Maven's absolute path or the sandbox's relative one) names `file`. */
function namesFile(message: CompileMessage, file: string): boolean {
  return message.file === file || message.file.endsWith(`/${file}`);
}

/** Compile errors of a build, by the project-relative file they are in. */
function errorsIn(messages: readonly CompileMessage[], file: string): number[] {
  return messages
    .filter((message) => namesFile(message, file) && message.line !== null)
    .map((message) => message.line!);
}

function compileMessagesOf(verdict: Verdict): CompileMessage[] {
  return verdict.kind === 'CompileError' ? verdict.messages : [];
}

/** A state with generated test classes (and, for probes, the Observe class) added. */
export async function withClasses(
  state: ProjectState,
  classes: readonly { file: string; source: string }[],
  testSources: string,
  observe: boolean,
): Promise<ProjectState> {
  const files = classes.map((entry) => ({ file: entry.file, before: '', after: entry.source }));
  if (observe) {
    files.push({
      file: path.posix.join(testSources, OBSERVE_FILE),
      before: '',
      after: await readFile(path.join(observeSourceRoot(), OBSERVE_FILE), 'utf8'),
    });
  }
  return withPatch(state, patchOf(files));
}

/**
 * Builds a state, dropping the methods of generated classes that javac rejects (a variant that
 * does not type-check) until it compiles or nothing is left; returns what compiled.
 */
export async function compileDropping<
  T extends { file: string; source: string; methods: string[] },
>(
  state: (classes: T[]) => Promise<ProjectState>,
  classes: T[],
  setup: AmplifySetup,
  subject: RepairSubject,
  losses: StageOneLoss[],
  gate: StageOneLoss['gate'],
  build: BuildSettings = subject.project.build,
): Promise<
  { classes: T[]; workDir: string; target: Parameters<TestRunner['run']>[0]['target'] } | undefined
> {
  let current = classes;
  for (let round = 0; round < 4 && current.length > 0; round++) {
    const built = await state(current);
    const changed = await setup.copy.checkout(built);
    const target = {
      projectDir: setup.copy.root,
      build,
      changed: compiledSources(changed),
    };
    const compiled = await setup.maven.compile(target);
    if (compiled.kind === 'Compiled')
      return { classes: current, workDir: compiled.workDir, target };
    const dropped = dropRejected(current, compileMessagesOf(compiled.verdict), gate);
    losses.push(...dropped.losses);
    if (dropped.classes === current) {
      losses.push({
        gate,
        tests: current.map((entry) => entry.file),
        detail: describeVerdict(compiled.verdict),
      });
      return undefined;
    }
    current = dropped.classes;
  }
  return undefined;
}

/** Probe classes built with `state` and the Observe class, dropping what javac rejects. */
export function compiledProbes<T extends { file: string; source: string; methods: string[] }>(
  state: ProjectState,
  probes: T[],
  subject: RepairSubject,
  setup: AmplifySetup,
  losses: StageOneLoss[],
): ReturnType<typeof compileDropping<T>> {
  return compileDropping(
    (classes) => withClasses(state, classes, subject.project.layout.testSources, true),
    probes,
    setup,
    subject,
    losses,
    'probe-compile',
    // Observe.java is the harness's, without the project's licence header: a licence check in
    // the build (Apache RAT in commons-compress) would refuse it.
    {
      ...subject.project.build,
      mavenArgs: [...subject.project.build.mavenArgs, '-Drat.skip=true'],
    },
  );
}

/**
 * The generated classes without the test methods javac rejected (by the lines of its errors in
 * each class's file), each loss recorded; the same array when no error falls in a method of
 * theirs (the build failed for another reason).
 */
export function dropRejected<T extends { file: string; source: string; methods: string[] }>(
  classes: T[],
  messages: readonly CompileMessage[],
  gate: StageOneLoss['gate'],
): { classes: T[]; losses: StageOneLoss[] } {
  const losses: StageOneLoss[] = [];
  let dropped = 0;
  const kept = classes.flatMap((entry) => {
    const bad = methodsAtLines(entry.source, errorsIn(messages, entry.file)).filter((name) =>
      entry.methods.includes(name),
    );
    if (bad.length === 0) return [entry];
    dropped += bad.length;
    losses.push({
      gate,
      tests: bad.map((name) => `${entry.file}#${name}`),
      detail:
        messages.find((message) => namesFile(message, entry.file))?.message ?? 'does not compile',
    });
    const methods = entry.methods.filter((name) => !bad.includes(name));
    return methods.length === 0
      ? []
      : [{ ...entry, methods, source: keepOnly(entry.source, methods) }];
  });
  return { classes: dropped === 0 ? classes : kept, losses };
}

/**
 * The methods a test can call among those holding one of `lines` (by project-relative file) in
 * the checked-out tree.
 */
async function sliceCallTargets(
  root: string,
  lines: ReadonlyMap<string, ReadonlySet<number>>,
): Promise<CallTarget[]> {
  const targets: CallTarget[] = [];
  for (const [file, wanted] of [...lines].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const source = await readTextIfExists(path.join(root, file));
    if (source !== undefined) targets.push(...callTargets(source, [...wanted]));
  }
  return targets;
}

function methodNamed(methods: readonly TestMethod[], name: string): TestMethod {
  return methods.find((method) => method.name === name)!;
}

/**
 * The project's source classes the instance names, with the variants of their tests; with
 * `asIs`, up to that many of the tests unchanged come first (their values become checks).
 */
export async function sourceClasses(
  subject: RepairSubject,
  setup: AmplifySetup,
  losses: StageOneLoss[],
  options: {
    asIs: number;
    /** Lines (by file) whose methods the calls the variants add aim at. */
    callsTo: ReadonlyMap<string, ReadonlySet<number>>;
  },
): Promise<SourceClass[]> {
  const { testSources } = subject.project.layout;
  const classes: SourceClass[] = [];
  const targets = await sliceCallTargets(setup.copy.root, options.callsTo);
  const outer = [
    ...new Set(
      [...instanceTestClasses(subject.instance).keys()].map((name) => name.split('$')[0]!),
    ),
  ].sort();
  for (const testClass of outer) {
    const file = path.posix.join(testSources, `${testClass.replace(/\./g, '/')}.java`);
    const source = await readTextIfExists(path.join(setup.copy.root, file));
    const scan = source === undefined ? undefined : testMethods(source);
    if (source === undefined || !scan || scan.kind !== 'TestClass') {
      losses.push({
        gate: 'not-a-test-class',
        tests: [testClass],
        detail: scan?.kind === 'NotATestClass' ? scan.reason : 'no source',
      });
      continue;
    }
    const seed = Number.parseInt(sha256Text(`${setup.seed}:${testClass}`).slice(0, 8), 16);
    const all = scan.methods.flatMap((method) =>
      inputVariants(source, method, { seed, max: VARIANTS_PER_METHOD }),
    );
    const asIs = shuffled(scan.methods, seededRandom(seed))
      .slice(0, options.asIs)
      .map((method) => asIsVariant(source, method));
    const inputs = shuffled(all, seededRandom(seed)).slice(0, VARIANTS_PER_CLASS);
    const calls = [
      ...scan.methods.flatMap((method) =>
        callVariants(source, method, targets, { seed, max: CALLS_PER_METHOD }),
      ),
      ...inputs.flatMap((variant) =>
        callAfter(source, methodNamed(scan.methods, variant.method), variant, targets, { seed }),
      ),
    ];
    const variants = [
      ...asIs,
      ...inputs,
      ...shuffled(calls, seededRandom(seed)).slice(0, CALLS_PER_CLASS),
    ];
    if (variants.length === 0) continue;
    let newClass = `${testClass}StrengthenedTest`.replace(
      /TestStrengthenedTest$/,
      'StrengthenedTest',
    );
    for (
      let n = 2;
      await readTextIfExists(
        path.join(setup.copy.root, testSources, `${newClass.replace(/\./g, '/')}.java`),
      );
      n++
    ) {
      newClass = `${testClass}Strengthened${n}Test`;
    }
    classes.push({
      testClass,
      file,
      source,
      framework: scan.framework,
      newClass,
      newFile: path.posix.join(testSources, `${newClass.replace(/\./g, '/')}.java`),
      variants,
      // The probe class names each variant's method; the final class keeps those names.
      probeNames: methodsOf(probeClass(source, variants, { className: simpleName(newClass) })),
    });
  }
  return classes;
}

/** The methods a run of a class failed: all of `methods` when the class did not run. */
export function failingMethods(verdict: Verdict, methods: readonly string[]): Set<string> {
  if (verdict.kind === 'Passed') return new Set();
  if (verdict.kind === 'TestFailed' || verdict.kind === 'TestErrored') {
    return new Set(verdict.failures.map((failure) => baseTestMethod(failure.testMethod)));
  }
  return new Set(methods);
}

/** The methods of `classes` that pass one run on `target`; the rest are dropped as `gate`. */
async function passingOnce<T extends { file: string; source: string; methods: string[] }>(
  classes: readonly T[],
  target: Parameters<TestRunner['run']>[0]['target'],
  maven: TestRunner,
  losses: StageOneLoss[],
  how: { gate: StageOneLoss['gate']; where: string; testClass: (entry: T) => string },
): Promise<T[]> {
  const kept: T[] = [];
  for (const entry of classes) {
    const result = await maven.run({ target, testClass: how.testClass(entry) });
    const failing = failingMethods(result.verdict, entry.methods);
    const passing = entry.methods.filter((method) => !failing.has(method));
    if (failing.size > 0) {
      losses.push({
        gate: how.gate,
        tests: entry.methods
          .filter((method) => failing.has(method))
          .map((m) => `${entry.file}#${m}`),
        detail: `${how.where}: ${describeVerdict(result.verdict)}`,
      });
    }
    if (passing.length > 0) {
      kept.push({ ...entry, methods: passing, source: keepOnly(entry.source, passing) });
    }
  }
  return kept;
}

/** Relevant missed lines by file, from the coverage before. */
function missedLines(
  before: Extract<SliceCoverage, { kind: 'Measured' }>,
): Map<string, Set<number>> {
  return new Map(
    before.files
      .filter((file) => file.missed.length > 0)
      .map((file) => [file.file, new Set(file.missed)]),
  );
}

export async function stageOne(
  subject: RepairSubject,
  before: Extract<SliceCoverage, { kind: 'Measured' }>,
  setup: AmplifySetup,
): Promise<StageOneOutcome> {
  const missed = missedLines(before);
  if (missed.size === 0) return { kind: 'NothingMissed' };
  await loadJavaGrammar();
  const losses: StageOneLoss[] = [];
  const { layout } = subject.project;
  const gold = withTests(subject, subject.gold);
  await setup.copy.checkout(gold);
  const sources = await sourceClasses(subject, setup, losses, { asIs: 0, callsTo: missed });
  const variantsTried = sources.reduce((sum, entry) => sum + entry.variants.length, 0);
  if (sources.length === 0) return { kind: 'Amplified', classes: [], variantsTried, losses };

  // Probes on gold: compile (dropping variants javac rejects), then 3 runs and a foreign one.
  const probes = sources.map((entry) => {
    const source = probeClass(entry.source, entry.variants, {
      className: simpleName(entry.newClass),
    });
    return { file: entry.newFile, source, methods: methodsOf(source), origin: entry };
  });
  const compiled = await compiledProbes(gold, probes, subject, setup, losses);
  if (!compiled) return { kind: 'Amplified', classes: [], variantsTried, losses };
  const jacoco = await ensureJacoco(setup.cache);
  const work = await makeTempDir('stage-one');
  try {
    const observations = new Map<string, Observation[][]>();
    const coveredBy = new Map<string, Map<string, Set<string>>>();
    for (const probe of compiled.classes) {
      const origin = probes.find((entry) => entry.file === probe.file)!.origin;
      const runs: Observation[][] = [];
      const coverageDir = path.join(work, `coverage-${simpleName(origin.newClass)}`);
      await mkdir(coverageDir, { recursive: true });
      for (let run = 0; run < 4; run++) {
        const file = path.join(work, `${simpleName(origin.newClass)}-${run}.jsonl`);
        const jvmArgs = [`-Dwitnessgym.observations=${file}`];
        if (run === 0) {
          const includes = [...missed.keys()].map((source) =>
            packagePattern(sourceRootRelative(layout.mainSources, source)),
          );
          jvmArgs.push(
            jacocoAgentArg(jacoco.agentJar, path.join(coverageDir, 'all.exec'), includes),
          );
          jvmArgs.push(`-Dwitnessgym.coverage=${coverageDir}`);
        }
        if (run === 3) jvmArgs.push(...FOREIGN_LOCALE_ARGS);
        const result = await setup.maven.run({
          target: compiled.target,
          testClass: origin.newClass,
          jvmArgs,
        });
        if (
          result.verdict.kind !== 'Passed' &&
          result.verdict.kind !== 'TestFailed' &&
          result.verdict.kind !== 'TestErrored'
        ) {
          losses.push({
            gate: 'probe-run',
            tests: [origin.newClass],
            detail: describeVerdict(result.verdict),
          });
          break;
        }
        const parsed = parseObservations((await readTextIfExists(file)) ?? '');
        runs.push(parsed.kind === 'Parsed' ? parsed.observations : []);
      }
      if (runs.length < 4) continue;
      observations.set(probe.file, runs);
      const byMethod = new Map<string, Set<string>>();
      for (const entry of await readdir(coverageDir)) {
        if (!entry.endsWith('.exec') || entry === 'all.exec') continue;
        const coverage = await readLineCoverage({
          cliJar: jacoco.cliJar,
          execFile: path.join(coverageDir, entry),
          classDirs: [path.join(compiled.workDir, layout.mainClasses)],
          timeoutMs: 120_000,
        });
        if (coverage.kind !== 'Measured') continue;
        const lines = new Set<string>();
        for (const [file, lost] of missed) {
          const states = coverage.files.get(sourceRootRelative(layout.mainSources, file));
          for (const line of lost)
            if (states?.get(line) === 'covered') lines.add(`${file}:${line}`);
        }
        byMethod.set(entry.slice(0, -'.exec'.length), lines);
      }
      coveredBy.set(probe.file, byMethod);
    }

    // Greedy: the method that covers the most missed lines not yet covered, until none adds.
    const chosen = new Map<string, string[]>();
    const reached = new Set<string>();
    for (;;) {
      let best: { file: string; method: string; adds: number } | undefined;
      for (const [file, byMethod] of coveredBy) {
        for (const [method, lines] of [...byMethod].sort(([a], [b]) => (a < b ? -1 : 1))) {
          const adds = [...lines].filter((line) => !reached.has(line)).length;
          if (adds > 0 && (!best || adds > best.adds)) best = { file, method, adds };
        }
      }
      if (!best) break;
      for (const line of coveredBy.get(best.file)!.get(best.method)!) reached.add(line);
      chosen.set(best.file, [...(chosen.get(best.file) ?? []), best.method]);
    }
    for (const [file, byMethod] of coveredBy) {
      const unused = [...byMethod.keys()].filter((method) => !chosen.get(file)?.includes(method));
      if (unused.length > 0) {
        losses.push({
          gate: 'no-new-coverage',
          tests: unused.map((method) => `${file}#${method}`),
          detail: 'covers no relevant line the suite and the chosen tests miss',
        });
      }
    }

    // The final classes: assertions from stable observations, only the chosen methods.
    const finals: { file: string; source: string; methods: string[]; origin: SourceClass }[] = [];
    for (const [file, methods] of chosen) {
      const origin = sources.find((entry) => entry.newFile === file)!;
      const stable = stableObservations(observations.get(file)!);
      const text = finalClass(origin.source, origin.variants, stable, {
        className: simpleName(origin.newClass),
        framework: origin.framework,
      });
      const kept = methodsOf(text).filter((method) => methods.includes(method));
      const lost = methods.filter((method) => !kept.includes(method));
      if (lost.length > 0) {
        losses.push({
          gate: 'no-stable-oracle',
          tests: lost.map((method) => `${file}#${method}`),
          detail: 'no assertion holds on what gold did in every run',
        });
      }
      if (kept.length > 0)
        finals.push({ file, source: keepOnly(text, kept), methods: kept, origin });
    }
    if (finals.length === 0) return { kind: 'Amplified', classes: [], variantsTried, losses };

    const onGold = await passingOnGold(
      subject,
      finals.map((entry) => ({ ...entry, testClass: entry.origin.newClass })),
      setup,
      losses,
    );
    const kept = await passingGuardAndApiRule(subject, onGold, setup, losses);
    return {
      kind: 'Amplified',
      classes: kept.map((entry) =>
        amplifiedClass(finals.find((final) => final.file === entry.file)!.origin, entry),
      ),
      variantsTried,
      losses,
    };
  } finally {
    await removeTree(work);
  }
}

/** A kept class, each method with the test it varies and how. */
export function amplifiedClass(origin: SourceClass, entry: GatedClass): AmplifiedClass {
  return {
    testClass: origin.newClass,
    file: entry.file,
    source: entry.source,
    methods: entry.methods,
    provenance: entry.methods.map((method) => {
      const variant = origin.variants[origin.probeNames.indexOf(method)]!;
      return { method, from: variant.method, operator: variant.operator, detail: variant.detail };
    }),
  };
}

/** A generated test class on its way through the gates. */
export interface GatedClass {
  testClass: string;
  file: string;
  source: string;
  methods: string[];
}

/** The methods of `classes` that compile with gold and pass on it in 3 fresh runs. */
export async function passingOnGold<T extends GatedClass>(
  subject: RepairSubject,
  classes: T[],
  setup: AmplifySetup,
  losses: StageOneLoss[],
): Promise<T[]> {
  const { layout } = subject.project;
  const gold = withTests(subject, subject.gold);
  const onGold = await compileDropping(
    (current) => withClasses(gold, current, layout.testSources, false),
    classes,
    setup,
    subject,
    losses,
    'final-compile',
  );
  if (!onGold) return [];
  const repeated = withReruns(setup.maven, 3);
  const kept: T[] = [];
  for (const entry of onGold.classes) {
    const result = await repeated.run({ target: onGold.target, testClass: entry.testClass });
    const ranAll = result.runs.every((run) =>
      ['Passed', 'TestFailed', 'TestErrored'].includes(run.verdict.kind),
    );
    if (!ranAll) {
      losses.push({
        gate: 'fails-on-gold',
        tests: entry.methods.map((m) => `${entry.file}#${m}`),
        detail: describeVerdict(result.verdict),
      });
      continue;
    }
    const failing = new Set(result.runs.flatMap((run) => [...failingMethods(run.verdict, [])]));
    const passing = entry.methods.filter((method) => !failing.has(method));
    if (failing.size > 0) {
      losses.push({
        gate: 'fails-on-gold',
        tests: [...failing].map((m) => `${entry.file}#${m}`),
        detail: 'fails on gold in one of 3 fresh runs',
      });
    }
    if (passing.length > 0)
      kept.push({ ...entry, methods: passing, source: keepOnly(entry.source, passing) });
  }
  return kept;
}

/**
 * The methods of `classes` that pass on every correct alternative of gold the guard has (a test
 * failing on one over-fits gold) and compile against the base tree (the API rule: a test calling
 * what only gold adds rejects any fix that does not add it).
 */
export async function passingGuardAndApiRule<T extends GatedClass>(
  subject: RepairSubject,
  classes: T[],
  setup: AmplifySetup,
  losses: StageOneLoss[],
): Promise<T[]> {
  const { layout } = subject.project;
  let kept = classes;
  for (const alternative of kept.length > 0 ? await setup.guard() : []) {
    const state = withTests(subject, withPatch(subject.base, patchFromDiff(alternative.patch)));
    const onAlternative = await compileDropping(
      (current) => withClasses(state, current, layout.testSources, false),
      kept,
      setup,
      subject,
      losses,
      'guard',
    );
    kept = onAlternative
      ? await passingOnce(onAlternative.classes, onAlternative.target, setup.maven, losses, {
          gate: 'guard',
          where: `on correct alternative ${alternative.id} (${alternative.operator})`,
          testClass: (entry) => entry.testClass,
        })
      : [];
    if (kept.length === 0) return [];
  }
  if (kept.length === 0) return [];
  const onBase = await compileDropping(
    (current) => withClasses(withTests(subject, subject.base), current, layout.testSources, false),
    kept,
    setup,
    subject,
    losses,
    'api-rule',
  );
  return onBase?.classes ?? [];
}
