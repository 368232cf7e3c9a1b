import { z } from 'zod';
import type { CacheLayout } from '../../core/cache.js';
import { CompileErrorSchema, runRunnerAnalysis, type JavacFileRequest } from './runner-analysis.js';

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
  errors: z.array(CompileErrorSchema),
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

export interface SourceModelRequest extends JavacFileRequest {
  /** Character ranges whose expressions are typed; declarations are reported file-wide. */
  ranges: [number, number][];
}

export async function analyseSource(
  request: SourceModelRequest,
  cache: CacheLayout,
): Promise<SourceModelOutcome> {
  const outcome = await runRunnerAnalysis('SourceModel', request, SourceModelSchema, cache);
  return outcome.kind === 'Answered' ? { kind: 'Analysed', model: outcome.answer } : outcome;
}
