import path from 'node:path';
import { readLineCoverage, type JacocoJars } from '../../../coverage/jacoco.js';
import { removeTree } from '../../../core/fs.js';
import { describeVerdict, type SingleVerdict } from '../../../core/verdict.js';
import {
  compileTests,
  runTestClass,
  type JavaSandboxSetup,
  type PreparedTree,
  type SourceFile,
  type TestCompileOutcome,
} from '../../../sandbox/java-runs.js';
import type { PreparedSide } from '../../../sandbox/prepared-tree.js';
import { keepOnly } from '../amplify/assertions.js';
import { sourceRootRelative } from '../coverage.js';
import {
  dropRejected,
  failingMethods,
  FOREIGN_LOCALE_ARGS,
  type StageOneLoss,
} from '../stage-one.js';

/*
 * The gates of Stage I for tests an agent wrote. Those tests are untrusted, so every step runs in
 * the sandbox (src/sandbox/java-runs.ts) on trees the harness built: compile against gold, pass
 * there in three runs and a fourth under another locale and time zone, cover a relevant line the
 * suite missed (JaCoCo, read by the harness), compile against the base tree (the API rule), pass on
 * each correct alternative of gold (the guard), and then run on the base tree to tell
 * FAIL_TO_PASS from PASS_TO_PASS. A method that fails a gate is dropped, never repaired.
 */

export interface AgentTestClass {
  testClass: string;
  /** Project-relative. */
  file: string;
  source: string;
  methods: string[];
}

export interface GateTrees {
  gold: PreparedSide;
  base: PreparedSide;
  /** The base tree with a correct alternative of gold compiled in, per alternative. */
  guard: readonly { id: string; tree: PreparedTree }[];
}

export interface GateSetup {
  java: JavaSandboxSetup;
  jacoco: JacocoJars;
  /** JaCoCo's package patterns for the files the slice is in. */
  includes: readonly string[];
  /** Relevant lines the suite missed, by project-relative file. */
  missed: ReadonlyMap<string, ReadonlySet<number>>;
  /** Production source root, project-relative (JaCoCo keys sources below it). */
  mainSources: string;
}

export interface GatedTests {
  kept: AgentTestClass[];
  losses: StageOneLoss[];
  /** Missed relevant lines the kept classes cover, as `file:line`. */
  covered: Set<string>;
  failToPass: string[];
  passToPass: string[];
}

const RUNS_ON_GOLD = 3;

function without<T extends AgentTestClass>(entry: T, dropped: ReadonlySet<string>): T | undefined {
  const methods = entry.methods.filter((method) => !dropped.has(method));
  if (methods.length === 0) return undefined;
  return methods.length === entry.methods.length
    ? entry
    : { ...entry, methods, source: keepOnly(entry.source, methods) };
}

/**
 * Compiles in the sandbox (with `extra` sources beside, never dropped), dropping the methods javac
 * rejects (by the lines of its errors) until the rest compiles; a class whose errors fall outside
 * its test methods is lost whole.
 */
export async function compiledDropping<T extends AgentTestClass>(
  tree: PreparedTree,
  classes: T[],
  java: JavaSandboxSetup,
  gate: StageOneLoss['gate'],
  losses: StageOneLoss[],
  extra: readonly SourceFile[] = [],
): Promise<{ classes: T[]; dir: string } | undefined> {
  let current = classes;
  for (let round = 0; round < 4 && current.length > 0; round++) {
    const outcome: TestCompileOutcome = await compileTests(
      tree,
      [...current.map((entry) => ({ file: entry.file, content: entry.source })), ...extra],
      java,
    );
    if (outcome.kind === 'Compiled') return { classes: current, dir: outcome.classes };
    if (outcome.kind === 'Timeout') {
      losses.push({
        gate,
        tests: current.map((entry) => entry.file),
        detail: `javac ran past ${outcome.limitMs} ms`,
      });
      return undefined;
    }
    const dropped = dropRejected(current, outcome.messages, gate);
    losses.push(...dropped.losses);
    if (dropped.classes === current) {
      losses.push({
        gate,
        tests: current.map((entry) => entry.file),
        detail: outcome.messages
          .slice(0, 3)
          .map((message) => `${message.file}:${message.line ?? '?'}: ${message.message}`)
          .join('; '),
      });
      return undefined;
    }
    current = dropped.classes;
  }
  return undefined;
}

/** Runs each class on a tree; the methods that failed (or every method, when it did not run). */
export async function runEach(
  tree: PreparedTree,
  compiled: { classes: readonly AgentTestClass[]; dir: string },
  java: JavaSandboxSetup,
): Promise<Map<string, { failing: Set<string>; verdict: SingleVerdict }>> {
  const results = new Map<string, { failing: Set<string>; verdict: SingleVerdict }>();
  for (const entry of compiled.classes) {
    const run = await runTestClass(tree, compiled.dir, entry.testClass, java);
    results.set(entry.file, {
      failing: failingMethods(run.verdict, entry.methods),
      verdict: run.verdict,
    });
  }
  return results;
}

/** Drops what failed in `results`, recording the gate; the classes that remain. */
export function droppingFailures<T extends AgentTestClass>(
  classes: T[],
  results: ReadonlyMap<string, { failing: Set<string>; verdict: SingleVerdict }>,
  gate: StageOneLoss['gate'],
  where: string,
  losses: StageOneLoss[],
): T[] {
  return classes.flatMap((entry) => {
    const result = results.get(entry.file);
    const failing = result?.failing ?? new Set<string>();
    const lost = entry.methods.filter((method) => failing.has(method));
    if (lost.length > 0) {
      losses.push({
        gate,
        tests: lost.map((method) => `${entry.testClass}#${method}`),
        detail: `${where}: ${describeVerdict(result!.verdict)}`,
      });
    }
    const kept = without(entry, failing);
    return kept ? [kept] : [];
  });
}

/** Missed relevant lines a coverage run reached, as `file:line`. */
async function coveredMissedLines(
  dataFile: string | undefined,
  gold: PreparedSide,
  setup: GateSetup,
): Promise<Set<string>> {
  const reached = new Set<string>();
  if (!dataFile) return reached;
  const coverage = await readLineCoverage({
    cliJar: setup.jacoco.cliJar,
    execFile: dataFile,
    classDirs: [gold.classesDir],
    timeoutMs: 120_000,
  });
  if (coverage.kind !== 'Measured') return reached;
  for (const [file, lines] of setup.missed) {
    const states = coverage.files.get(sourceRootRelative(setup.mainSources, file));
    for (const line of lines) if (states?.get(line) === 'covered') reached.add(`${file}:${line}`);
  }
  return reached;
}

/**
 * Gold, three runs and a foreign one, until no method fails: a dropped method may have left state
 * behind, so the rest runs again.
 */
async function stableOnGold(
  classes: AgentTestClass[],
  trees: GateTrees,
  setup: GateSetup,
  losses: StageOneLoss[],
): Promise<AgentTestClass[]> {
  let current = classes;
  const foreign = { ...trees.gold, jvmArgs: [...trees.gold.jvmArgs, ...FOREIGN_LOCALE_ARGS] };
  for (let round = 0; round < 3 && current.length > 0; round++) {
    const compiled = await compiledDropping(
      trees.gold,
      current,
      setup.java,
      'final-compile',
      losses,
    );
    if (!compiled) return [];
    try {
      let next = compiled.classes;
      for (let run = 0; run <= RUNS_ON_GOLD && next.length > 0; run++) {
        const results = await runEach(
          run === RUNS_ON_GOLD ? foreign : trees.gold,
          { classes: next, dir: compiled.dir },
          setup.java,
        );
        next = droppingFailures(
          next,
          results,
          'fails-on-gold',
          run === RUNS_ON_GOLD
            ? 'on gold under a Turkish locale and the Chatham time zone'
            : `on gold, run ${run + 1} of ${RUNS_ON_GOLD}`,
          losses,
        );
      }
      if (sameClasses(next, compiled.classes)) return next;
      current = next;
    } finally {
      await removeTree(compiled.dir);
    }
  }
  return [];
}

function sameClasses(a: readonly AgentTestClass[], b: readonly AgentTestClass[]): boolean {
  return a.length === b.length && a.every((entry, index) => entry === b[index]);
}

/** The missed relevant lines each class covers on gold, from a coverage run of its own. */
async function coverageOnGold(
  classes: AgentTestClass[],
  trees: GateTrees,
  setup: GateSetup,
): Promise<Map<string, Set<string>>> {
  const covered = new Map<string, Set<string>>();
  const compiled = await compiledDropping(trees.gold, classes, setup.java, 'final-compile', []);
  if (!compiled) return covered;
  try {
    for (const entry of compiled.classes) {
      const run = await runTestClass(trees.gold, compiled.dir, entry.testClass, setup.java, {
        coverage: { agentJar: setup.jacoco.agentJar, includes: setup.includes },
      });
      try {
        covered.set(entry.file, await coveredMissedLines(run.coverageData, trees.gold, setup));
      } finally {
        if (run.coverageData) await removeTree(path.dirname(run.coverageData));
      }
    }
  } finally {
    await removeTree(compiled.dir);
  }
  return covered;
}

/** Every gate, in order; what is left, what it covers and how it splits on the base tree. */
export async function gateAgentTests(
  classes: AgentTestClass[],
  trees: GateTrees,
  setup: GateSetup,
): Promise<GatedTests> {
  const losses: StageOneLoss[] = [];
  const empty = (): GatedTests => ({
    kept: [],
    losses,
    covered: new Set(),
    failToPass: [],
    passToPass: [],
  });
  const stable = await stableOnGold(classes, trees, setup, losses);
  const coverage = await coverageOnGold(stable, trees, setup);
  let kept = stable.filter((entry) => {
    if ((coverage.get(entry.file)?.size ?? 0) > 0) return true;
    losses.push({
      gate: 'no-new-coverage',
      tests: entry.methods.map((method) => `${entry.testClass}#${method}`),
      detail: 'the class covers no relevant line the suite missed',
    });
    return false;
  });
  for (const guard of trees.guard) {
    if (kept.length === 0) return empty();
    const compiled = await compiledDropping(guard.tree, kept, setup.java, 'guard', losses);
    if (!compiled) return empty();
    try {
      const results = await runEach(guard.tree, compiled, setup.java);
      kept = droppingFailures(
        compiled.classes,
        results,
        'guard',
        `on correct alternative ${guard.id}`,
        losses,
      );
    } finally {
      await removeTree(compiled.dir);
    }
  }
  if (kept.length === 0) return empty();
  // The API rule, then the base tree's runs on what compiled there.
  const onBase = await compiledDropping(trees.base, kept, setup.java, 'api-rule', losses);
  if (!onBase) return empty();
  try {
    const results = await runEach(trees.base, onBase, setup.java);
    const failToPass: string[] = [];
    const passToPass: string[] = [];
    for (const entry of onBase.classes) {
      const failing = results.get(entry.file)!.failing;
      for (const method of entry.methods) {
        (failing.has(method) ? failToPass : passToPass).push(`${entry.testClass}#${method}`);
      }
    }
    // Coverage counts only what is kept: measured again when a gate dropped a method since.
    const unchanged = sameClasses(
      onBase.classes,
      stable.filter((entry) => onBase.classes.some((kept) => kept.file === entry.file)),
    );
    const final = unchanged ? coverage : await coverageOnGold(onBase.classes, trees, setup);
    const covered = new Set(onBase.classes.flatMap((entry) => [...(final.get(entry.file) ?? [])]));
    return { kept: onBase.classes, losses, covered, failToPass, passToPass };
  } finally {
    await removeTree(onBase.dir);
  }
}
