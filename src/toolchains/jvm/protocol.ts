import { z } from 'zod';

/*
 * The JSON-lines protocol between the harness and the runner JVM (jvm/runner/witnessgym/runner/
 * Main.java): one request line, one answer line, each answer a union on `kind`. Answers are read
 * strictly, so a runner that drifts from these schemas is a harness fault, never a verdict.
 */

/** Bumped with every change to the wire format; the JVM's pong must carry the same number. */
export const PROTOCOL_VERSION = 1;

// Requests. The helper adds the `id` that the answer carries back.

/** What a runner JVM needs to load a project: its classes, class path and bridge. */
const ProjectSpaceSchema = z.strictObject({
  /** Identifies the project's class-loading space inside a runner JVM. */
  key: z.string(),
  classes: z.string(),
  testClasses: z.string(),
  classpath: z.array(z.string()),
  bridge: z.string(),
  release: z.string().nullable(),
});

const GeneratorSchema = z.strictObject({
  mainClass: z.string(),
  args: z.array(z.string()),
  systemProperties: z.record(z.string(), z.string()),
});

/** Methods each build step executes, by the JVM's key for the step. */
const LearntBuildStepsSchema = z.record(z.string(), z.array(z.string()));

const PingRequestSchema = z.strictObject({ op: z.literal('ping') });

/** Compiles changed sources into the overlay and reruns the build steps they affect. */
const CompileRequestSchema = z.strictObject({
  op: z.literal('compile'),
  project: ProjectSpaceSchema,
  overlay: z.string(),
  sources: z.array(z.strictObject({ path: z.string(), scope: z.enum(['main', 'test']) })),
  generators: z.array(GeneratorSchema),
  /** What earlier JVMs learnt about the build steps, so this one need not learn it again. */
  learnt: LearntBuildStepsSchema,
});

/** Runs a test class over the overlay a compile request prepared. */
const RunRequestSchema = z.strictObject({
  op: z.literal('run'),
  project: ProjectSpaceSchema,
  overlay: z.string(),
  testClass: z.string(),
  methods: z.array(z.string()).optional(),
  trace: z.literal(true).optional(),
  perTest: z.boolean().optional(),
});

/** The javac analyses the runner answers (jvm/runner's SourceModel and Slicer). */
const AnalysisNameSchema = z.enum(['SourceModel', 'Slicer']);
export type AnalysisName = z.infer<typeof AnalysisNameSchema>;

/** A javac analysis of one file (jvm/runner's SourceModel or Slicer), its request as theirs. */
const AnalyseRequestSchema = z.strictObject({
  op: z.literal('analyse'),
  analysis: AnalysisNameSchema,
  request: z.record(z.string(), z.unknown()),
});

export const RequestSchema = z.discriminatedUnion('op', [
  PingRequestSchema,
  CompileRequestSchema,
  RunRequestSchema,
  AnalyseRequestSchema,
]);
export type Request = z.infer<typeof RequestSchema>;
export type Op = Request['op'];

// Answers.

const id = z.int();
const millis = z.int().nonnegative();

/** The answer to a ping: the JVM is up and speaks protocol version `v`. */
const PongSchema = z.strictObject({
  kind: z.literal('Pong'),
  id,
  v: z.literal(PROTOCOL_VERSION),
  pid: z.int(),
  java: z.string(),
});
/** Just the version of a pong, whatever else a runner of another version puts in it. */
const SpokenVersionSchema = z.looseObject({ kind: z.literal('Pong'), v: z.int() });

/** What the recipe's build steps cost a compile request, and what was learnt on the way. */
const BuildStepsSchema = z.strictObject({
  /** Steps rerun with the candidate's classes, and their time. */
  rerun: z.int().nonnegative(),
  rerunMs: millis,
  /** Time spent learning which methods a step executes (once per step and project). */
  learningMs: millis,
  learnt: LearntBuildStepsSchema,
});

const CompiledSchema = z.strictObject({
  kind: z.literal('Compiled'),
  id,
  compileMs: millis,
  buildSteps: BuildStepsSchema,
});

const CompileFailedSchema = z.strictObject({
  kind: z.literal('CompileFailed'),
  id,
  compileMs: millis,
  /** The scope of the first file with an error. */
  scope: z.enum(['main', 'test']),
  messages: z.array(
    z.strictObject({
      file: z.string(),
      line: z.int().nullable(),
      column: z.int().nullable(),
      message: z.string(),
    }),
  ),
});

/** The sources compiled but a build step threw; what the steps did until then is kept. */
const BuildStepFailedSchema = z.strictObject({
  kind: z.literal('BuildStepFailed'),
  id,
  compileMs: millis,
  reason: z.string(),
  buildSteps: BuildStepsSchema,
});

export const TestResultSchema = z.strictObject({
  testClass: z.string(),
  testMethod: z.string(),
  /** Surefire's categories: `failure` an AssertionError, `error` any other throwable. */
  outcome: z.enum(['passed', 'failure', 'error', 'skipped']),
  /** The throwable's first line as a trace prints it (`java.lang.Foo: message`, its toString()). */
  printed: z.string().optional(),
  message: z.string().optional(),
  frames: z.array(z.string()).optional(),
  /** With per-test tracing, the index of the test's part of the trace log. */
  traceIndex: z.int().nonnegative().optional(),
});
export type TestResult = z.infer<typeof TestResultSchema>;

const TracedMethodSchema = z.strictObject({
  /** Internal class name, e.g. org/json/simple/JsonArray$1. */
  owner: z.string(),
  name: z.string(),
  descriptor: z.string(),
  /** Source file name from the class file, e.g. JsonArray.java. */
  source: z.string().nullable(),
  /** First line of the method's code, in code order. */
  line: z.int().nullable(),
});
export type TracedMethod = z.infer<typeof TracedMethodSchema>;

/**
 * Hits of a traced run: method ids in first-hit order (per test when asked, each test's hits
 * after its marker -1-k) and the methods they name.
 */
const RawTraceSchema = z.strictObject({
  log: z.array(z.int()),
  methods: z.record(z.string(), TracedMethodSchema),
});
export type RawTrace = z.infer<typeof RawTraceSchema>;

/** `restart`: threads the tests left running refused to stop, so the JVM is unfit to go on. */
const restart = z.boolean();

const RanSchema = z.strictObject({
  kind: z.literal('Ran'),
  id,
  results: z.array(TestResultSchema),
  trace: RawTraceSchema.optional(),
  /** Class loader, test class and test plan. */
  loadMs: millis,
  testMs: millis,
  restart,
});

const TestClassNotFoundSchema = z.strictObject({
  kind: z.literal('TestClassNotFound'),
  id,
  className: z.string(),
  restart,
});

/** The tests threw a VirtualMachineError (out of memory, say) past the platform. */
const RunCrashedSchema = z.strictObject({
  kind: z.literal('RunCrashed'),
  id,
  reason: z.string(),
  restart,
});

/** The runner itself failed on the request: a harness fault. */
const ErrorAnswerSchema = z.strictObject({
  kind: z.literal('Error'),
  /** Null when the request line could not be read, so its id is unknown. */
  id: id.nullable(),
  message: z.string(),
});

const PingAnswerSchema = z.discriminatedUnion('kind', [PongSchema, ErrorAnswerSchema]);
const CompileAnswerSchema = z.discriminatedUnion('kind', [
  CompiledSchema,
  CompileFailedSchema,
  BuildStepFailedSchema,
  ErrorAnswerSchema,
]);
const RunAnswerSchema = z.discriminatedUnion('kind', [
  RanSchema,
  TestClassNotFoundSchema,
  RunCrashedSchema,
  ErrorAnswerSchema,
]);

/** The analysis's own answer, read by the analysis's schema (runner-analysis.ts). */
const AnalysedSchema = z.strictObject({ kind: z.literal('Analysed'), id, answer: z.unknown() });
const AnalyseAnswerSchema = z.discriminatedUnion('kind', [AnalysedSchema, ErrorAnswerSchema]);

const ANSWER_SCHEMAS = {
  ping: PingAnswerSchema,
  compile: CompileAnswerSchema,
  run: RunAnswerSchema,
  analyse: AnalyseAnswerSchema,
};

/** The answers a request of each op may get. */
export type AnswerTo = { [O in Op]: z.infer<(typeof ANSWER_SCHEMAS)[O]> };
export type CompileAnswer = AnswerTo['compile'];
export type RunAnswer = AnswerTo['run'];

export type AnswerRead<A> = { kind: 'Read'; answer: A } | { kind: 'Fault'; reason: string };

/** Issues shown in a fault's reason; a garbled trace could have one per log entry. */
const SHOWN_ISSUES = 5;

function formatIssues(error: z.ZodError): string {
  const shown = error.issues
    .slice(0, SHOWN_ISSUES)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  const more = error.issues.length - shown.length;
  return [...shown, ...(more > 0 ? [`${more} more`] : [])].join('; ');
}

/** The start of a long line, enough to recognise it in a fault's reason. */
function excerpt(line: string): string {
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/**
 * Reads the answer line to request `id` of kind `op`: a line that is not JSON, does not fit the
 * op's answer schema, answers another request, or (for a ping) comes from a runner speaking
 * another protocol version is a fault, with the reason saying what was wrong.
 */
export function readAnswer<O extends Op>(op: O, id: number, line: string): AnswerRead<AnswerTo[O]> {
  const what = `answer to ${op} request ${id}`;
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (error) {
    return {
      kind: 'Fault',
      reason: `${what} is not JSON (${(error as Error).message}): ${excerpt(line)}`,
    };
  }
  // The version comes first: a runner of another version may well answer in another shape.
  const spoken = op === 'ping' ? SpokenVersionSchema.safeParse(json) : undefined;
  if (spoken?.success && spoken.data.v !== PROTOCOL_VERSION) {
    return {
      kind: 'Fault',
      reason: `the runner JVM speaks protocol version ${spoken.data.v}, this harness version ${PROTOCOL_VERSION}`,
    };
  }
  const checked = ANSWER_SCHEMAS[op].safeParse(json);
  if (!checked.success) {
    return {
      kind: 'Fault',
      reason: `${what} does not fit the protocol (${formatIssues(checked.error)}): ${excerpt(line)}`,
    };
  }
  const answer = checked.data;
  if (answer.id !== id && !(answer.kind === 'Error' && answer.id === null)) {
    return { kind: 'Fault', reason: `${what} carries the id ${answer.id}` };
  }
  // The schema was picked by `op`; TypeScript cannot follow that link through the lookup.
  return { kind: 'Read', answer: answer as AnswerTo[O] };
}
