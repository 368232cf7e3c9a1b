import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { makeTempDir, removeTree } from '../../core/fs.js';
import { describeVerdict } from '../../core/verdict.js';
import { applyEdits } from '../../lang/java/syntax.js';
import { patchOf, withPatch, type ProjectState } from '../../project/state.js';
import { compiledSources, type WorkingCopy } from '../../project/working-copy.js';
import { timeLimit } from '../../runners/time-limits.js';
import type { TestRunner } from '../../runners/types.js';
import type { BuildSettings } from '../../toolchains/build-settings.js';
import { PROBED_TEXT_LIMIT, type Observation, type ProbedValue } from './operators/gate-signals.js';
import type { ClassRun } from './selection.js';

/*
 * Value profiling for an operator that conditions the bug on its inputs: a probe statement put
 * where the operator asks records, per call, the test method running and the values in scope, to
 * a file; the witness and the other classes reaching the bug's file run once on that state (with
 * per-test selection, only their tests that enter the probe's member). The probe's state is
 * temporary: it is never a step, and no case carries it.
 */

/** Where an operator wants the values reaching its site recorded, and which ones. */
export interface ProbePlan {
  /** A line start in the site's file: the probe goes there, before the statement on it. */
  at: number;
  indent: string;
  /** The method the probe is in, as traces name it: the classes to profile are those reaching it. */
  method: string;
  values: ProbedValue[];
}

/** What reached a probe: its plan's values, one observation per distinct call. */
export interface SiteProfile {
  at: number;
  values: ProbedValue[];
  observations: Observation[];
}

/** A gate step's condition and how rare it was among the observed calls (in the step record). */
export const GateRecordSchema = z.strictObject({
  condition: z.string(),
  /** The witness's failing methods whose calls the condition keeps on the bug path (all of them). */
  witnessMethods: z.array(z.string()),
  witnessCalls: z.number().int(),
  /** The other observed calls (other methods and classes), and how many still take the path. */
  otherCalls: z.number().int(),
  otherCallsOnBugPath: z.number().int(),
  /** otherCallsOnBugPath ÷ otherCalls; null when no other call was observed. */
  otherBugPathFraction: z.number().nullable(),
});
export type GateRecord = z.infer<typeof GateRecordSchema>;

function javaString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** How the probe writes one value: see `decodeToken` in gate-signals.ts for the tokens. */
function recorded(value: ProbedValue): string {
  const { name } = value;
  switch (value.kind) {
    case 'integral':
    case 'boolean':
      return `String.valueOf(${name})`;
    case 'char':
      return `String.valueOf((int) ${name})`;
    case 'string':
      return `(${name} == null ? "~" : ${name}.length() + ":" + java.net.URLEncoder.encode(${name}.substring(0, Math.min(${name}.length(), ${PROBED_TEXT_LIMIT})), "UTF-8"))`;
    case 'array':
      return `(${name} == null ? "~" : String.valueOf(${name}.length))`;
    case 'size':
      return `(${name} == null ? "~" : String.valueOf(${name}.size()))`;
    case 'length':
      return `(${name} == null ? "~" : String.valueOf(${name}.length()))`;
    case 'reference':
      return `(${name} == null ? "~" : "!")`;
  }
}

/** Frames of the JDK, the test frameworks and the runner: the test method is the outermost other. */
const FRAMEWORK_FRAMES =
  '(java|javax|jdk|sun|org\\\\.junit|junit|org\\\\.opentest4j|org\\\\.apache\\\\.maven|witnessgym)\\\\..*';

/**
 * How much a probe writes per class run (some 13,000 calls): a hot site records its first calls,
 * not every one. Each call it records costs a stack walk and a file append: at ten times this, a
 * hot site made one profiling run of commons-csv's CSVPrinterTest 25 s instead of 5.
 */
const PROBE_FILE_LIMIT = 400_000;

/** The probe statement (Java 8): a line per call, the test method then the values, tab-separated. */
export function probeStatement(plan: ProbePlan, output: string, lineBreak: string): string {
  const unit = '    ';
  const i = plan.indent;
  const line = ['witnessgymTest', ...plan.values.map(recorded)].join(' + "\\t" + ');
  return [
    `${i}try {`,
    `${i}${unit}java.nio.file.Path witnessgymCalls = java.nio.file.Paths.get(${javaString(output)});`,
    `${i}${unit}if (!java.nio.file.Files.exists(witnessgymCalls) || java.nio.file.Files.size(witnessgymCalls) < ${PROBE_FILE_LIMIT}L) {`,
    `${i}${unit}${unit}String witnessgymTest = "";`,
    `${i}${unit}${unit}for (StackTraceElement witnessgymFrame : new Throwable().getStackTrace()) {`,
    `${i}${unit}${unit}${unit}if (!witnessgymFrame.getClassName().matches("${FRAMEWORK_FRAMES}")) {`,
    `${i}${unit}${unit}${unit}${unit}witnessgymTest = witnessgymFrame.getMethodName();`,
    `${i}${unit}${unit}${unit}}`,
    `${i}${unit}${unit}}`,
    `${i}${unit}${unit}java.nio.file.Files.write(witnessgymCalls, (${line} + "\\n").getBytes("UTF-8"), java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);`,
    `${i}${unit}}`,
    `${i}} catch (java.io.IOException witnessgymError) {`,
    `${i}}`,
    '',
  ].join(lineBreak);
}

/** Whose call a probe's line records: a failing method's, another's, or one already counted. */
export type CallRole = 'failing' | 'other' | 'counted';

/**
 * Adds a probe file's lines to the observations (merged by values and failing method); returns
 * the failing methods it recorded calls of.
 */
export function addObservations(
  into: Map<string, Observation>,
  text: string,
  plan: ProbePlan,
  roleOf: (method: string) => CallRole,
): Set<string> {
  const failingRecorded = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const [method, ...values] = line.split('\t');
    if (values.length !== plan.values.length) continue;
    const role = roleOf(method!);
    if (role === 'counted') continue;
    if (role === 'failing') failingRecorded.add(method!);
    const failingMethod = role === 'failing' ? method! : null;
    const key = JSON.stringify([failingMethod, values]);
    const known = into.get(key);
    if (known) known.count++;
    else into.set(key, { failingMethod, values, count: 1 });
  }
  return failingRecorded;
}

export interface ProfileRequest {
  copy: WorkingCopy;
  fast: TestRunner;
  build: BuildSettings;
  /** The state the site's file is in, and that file (project-relative) with its text. */
  state: ProjectState;
  file: string;
  source: string;
  plan: ProbePlan;
  witness: string;
  /** The witness's methods that fail on the state: their calls are the ones to keep buggy. */
  failingMethods: readonly string[];
  /**
   * The runs that can reach the probe: the witness's and other classes' whose trace reaches the
   * probe's method, each whole or only its tests that enter it (a test that does not, records
   * nothing); the witness's failing methods first, alone where they can be (`profilingRuns`).
   */
  runs: readonly ClassRun[];
}

export type ProfileOutcome =
  { kind: 'Profiled'; profile: SiteProfile } | { kind: 'Unprofiled'; reason: string };

export async function profileSite(request: ProfileRequest): Promise<ProfileOutcome> {
  const { copy, fast, plan, source } = request;
  const dir = await makeTempDir('gate-profile');
  try {
    const output = path.join(dir, 'calls.tsv');
    const lineBreak = source.includes('\r\n') ? '\r\n' : '\n';
    const probed = applyEdits(source, [
      { start: plan.at, end: plan.at, text: probeStatement(plan, output, lineBreak) },
    ]);
    const state = withPatch(
      request.state,
      patchOf([{ file: request.file, before: source, after: probed }]),
    );
    const changed = await copy.checkout(state);
    const target = {
      projectDir: copy.root,
      build: request.build,
      changed: compiledSources(changed),
    };
    const compiled = await fast.compile(target);
    if (compiled.kind === 'CompileFailed') {
      return {
        kind: 'Unprofiled',
        reason: `the profiling probe does not compile: ${describeVerdict(compiled.verdict)}`,
      };
    }
    const observations = new Map<string, Observation>();
    // A failing method's calls come from the first run that recorded them: a witness run whole
    // after its failing methods ran alone records them again.
    const failingCounted = new Set<string>();
    for (const { testClass, methods } of request.runs) {
      await rm(output, { force: true });
      await fast.run({
        target,
        testClass,
        ...(methods ? { methods } : {}),
        timeoutMs: timeLimit(fast.name, 'run', undefined),
      });
      const text = await readFile(output, 'utf8').catch(() => '');
      const recorded = addObservations(observations, text, plan, (method) => {
        if (testClass !== request.witness || !request.failingMethods.includes(method)) {
          return 'other';
        }
        return failingCounted.has(method) ? 'counted' : 'failing';
      });
      for (const method of recorded) failingCounted.add(method);
    }
    return {
      kind: 'Profiled',
      profile: { at: plan.at, values: plan.values, observations: [...observations.values()] },
    };
  } finally {
    await removeTree(dir);
  }
}
