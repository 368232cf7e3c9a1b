import { z } from 'zod';
import type { CacheLayout } from '../../core/cache.js';
import {
  CompileErrorSchema,
  runRunnerAnalysis,
  type CompileError,
  type JavacFileRequest,
} from './runner-analysis.js';

/*
 * One Java file as units for program slicing (jvm/runner/.../Slicer.java): every statement of its
 * methods, constructors, initializer blocks and lambda bodies, and every field declaration, with
 * the symbols it defines and uses as javac resolved them. A compound statement is a unit for its
 * header only; the statements of its bodies are units of their own.
 *
 * Symbol keys: `local:<member>:<name>@<offset of the declaration>` for locals and parameters
 * (lambda, catch and for variables included), `field:<owner binary name>.<name>` for a field
 * however it is written, `this:<owner binary name>` for the object a call on (implicit) `this`
 * may change, and `name:<identifier>` for what javac could not resolve.
 */

const StatementScopeSchema = z.strictObject({
  kind: z.enum(['method', 'constructor', 'initializer', 'field']),
  /**
   * `parse(java.lang.String,int)` (erased parameter types), `<init>(int)` for a constructor,
   * `<clinit>` / `<init>` for a static / instance initializer block, the name of a field.
   */
  name: z.string(),
  /** Binary name of the class declaring the member (`a.B$Inner`, `a.B$1` for an anonymous one). */
  owner: z.string(),
  start: z.number().int(),
  end: z.number().int(),
});
export type StatementScope = z.infer<typeof StatementScopeSchema>;

const StatementSchema = z.strictObject({
  /** First and last line (1-based) of the unit: a compound statement's header lines only. */
  start: z.number().int(),
  end: z.number().int(),
  /** The member the unit belongs to; a lambda's statements belong to the enclosing member. */
  scope: StatementScopeSchema,
  defs: z.array(z.string()),
  uses: z.array(z.string()),
  /** The methods it invokes, `owner#name(erased parameter types)`, constructors as `<init>`. */
  calls: z.array(z.string()),
  /** Whether it compiles to code on its lines (a declaration without initializer does not). */
  executable: z.boolean(),
});

const StatementsAnswerSchema = z.strictObject({
  kind: z.literal('Analysed'),
  /** Compile errors; units are still given for what javac could attribute. */
  errors: z.array(CompileErrorSchema),
  /** In source order. */
  statements: z.array(StatementSchema),
});

/** A statement unit; `id` is its position in the file's list of units. */
export type StatementUnit = z.infer<typeof StatementSchema> & { id: number };

export type StatementsOutcome =
  | { kind: 'Analysed'; units: StatementUnit[]; errors: CompileError[] }
  /** The analysis itself could not run (not a compile error of the file: those are in `errors`). */
  | { kind: 'Failed'; reason: string };

export async function analyseStatements(
  request: JavacFileRequest,
  cache: CacheLayout,
): Promise<StatementsOutcome> {
  const outcome = await runRunnerAnalysis('Slicer', request, StatementsAnswerSchema, cache);
  if (outcome.kind === 'Failed') return outcome;
  return {
    kind: 'Analysed',
    units: outcome.answer.statements.map((statement, id) => ({ id, ...statement })),
    errors: outcome.answer.errors,
  };
}
