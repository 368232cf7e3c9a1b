import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { CacheLayout } from '../../core/cache.js';
import { makeTempDir, removeTree } from '../../core/fs.js';
import { runProcess } from '../../core/process.js';
import { jdkTool } from '../maven/maven.js';
import { runnerClasspath } from './setup.js';

/*
 * The compiler's view of one Java file (jvm/runner/.../SourceModel.java): declared types,
 * methods and locals with their types, and the type of each expression in chosen ranges, spelled
 * as the file can write them. Rewrites that add helpers or move values take their types from here
 * rather than guessing them from text. Offsets are UTF-16 indices into the file's text.
 */

const Located = {
  start: z.number().int(),
  end: z.number().int(),
  line: z.number().int(),
};
/** A type as the file can spell it; null when no source can (a capture, an anonymous class). */
const Spelled = z.string().nullable();

export const SourceModelSchema = z.strictObject({
  kind: z.literal('Analysed'),
  /** Compile errors javac found in the file (or in what it needs); empty for a sound file. */
  errors: z.array(
    z.strictObject({
      file: z.string().nullable(),
      line: z.number().int(),
      column: z.number().int(),
      message: z.string(),
    }),
  ),
  types: z.array(
    z.strictObject({
      ...Located,
      name: z.string(),
      qualifiedName: z.string(),
      kind: z.string(),
      modifiers: z.array(z.string()),
      nesting: z.string(),
      typeParameters: z.array(z.string()),
      members: z.array(z.strictObject({ name: z.string(), kind: z.string() })),
    }),
  ),
  methods: z.array(
    z.strictObject({
      ...Located,
      key: z.string(),
      name: z.string(),
      declaringType: z.string().nullable(),
      constructor: z.boolean(),
      modifiers: z.array(z.string()),
      typeParameters: z.array(z.string()),
      returnType: Spelled,
      parameters: z.array(z.strictObject({ name: z.string(), type: Spelled })),
      thrown: z.array(Spelled),
      bodyStart: z.number().int().optional(),
      bodyEnd: z.number().int().optional(),
    }),
  ),
  locals: z.array(
    z.strictObject({
      ...Located,
      name: z.string(),
      type: Spelled,
      final: z.boolean(),
      method: z.string().nullable(),
    }),
  ),
  expressions: z.array(
    z.strictObject({
      ...Located,
      /** javac's tree kind, lowercased: `identifier`, `method_invocation`, `plus`, … */
      node: z.string(),
      type: Spelled,
      calls: z
        .strictObject({
          declaringType: z.string(),
          name: z.string(),
          modifiers: z.array(z.string()),
          inThisFile: z.boolean(),
          /** Where the callee's declaration starts in this file (its modifiers included). */
          declaredAt: z.number().int().optional(),
        })
        .optional(),
      /** For calls and instance creations: the checked exceptions the callee declares. */
      checkedThrows: z.array(Spelled).optional(),
    }),
  ),
  /** `throw` statements in the ranges, with the type thrown and whether it is checked. */
  throwStatements: z.array(z.strictObject({ ...Located, type: Spelled, checked: z.boolean() })),
});
export type SourceModel = z.infer<typeof SourceModelSchema>;

export type SourceModelOutcome =
  | { kind: 'Analysed'; model: SourceModel }
  /** The analysis itself could not run (not a compile error of the file: those are in `errors`). */
  | { kind: 'Failed'; reason: string };

export interface SourceModelRequest {
  file: string;
  /** The classes the file compiles against: the project's own classes and its dependencies. */
  classpath: string[];
  /** The project's `--release` level, so types and APIs are those of its Java version. */
  release: string | null;
  /** Character ranges whose expressions are typed; declarations are reported file-wide. */
  ranges: [number, number][];
}

const ANALYSIS_TIMEOUT_MS = 120_000;
/** The oldest `--release` JDK 17's javac accepts. */
const OLDEST_RELEASE = 7;

/** `--release` for a class-file level such as `1.6` or `11`; older than javac knows counts as 8. */
export function javacRelease(level: string | null): string | null {
  if (level === null) return null;
  const major = Number(level.replace(/^1\./, ''));
  if (!Number.isInteger(major)) return null;
  return String(major < OLDEST_RELEASE ? 8 : major);
}

export async function analyseSource(
  request: SourceModelRequest,
  cache: CacheLayout,
): Promise<SourceModelOutcome> {
  const runner = await runnerClasspath(cache);
  const dir = await makeTempDir('source-model');
  try {
    const requestFile = path.join(dir, 'request.json');
    const output = path.join(dir, 'model.json');
    await writeFile(
      requestFile,
      JSON.stringify({ ...request, release: javacRelease(request.release), output }),
    );
    const run = await runProcess(
      jdkTool('java'),
      ['-cp', runner.classpath.join(':'), 'witnessgym.runner.SourceModel', requestFile],
      { timeoutMs: ANALYSIS_TIMEOUT_MS },
    );
    if (run.exitCode !== 0) {
      const why = run.timedOut ? 'timed out' : run.stderr.trim().split('\n')[0] || 'no output';
      return { kind: 'Failed', reason: `the source analysis did not finish: ${why}` };
    }
    const answer: unknown = JSON.parse(await readFile(output, 'utf8'));
    const failed = z
      .strictObject({ kind: z.literal('Failed'), reason: z.string() })
      .safeParse(answer);
    if (failed.success) return failed.data;
    return { kind: 'Analysed', model: SourceModelSchema.parse(answer) };
  } finally {
    await removeTree(dir);
  }
}
