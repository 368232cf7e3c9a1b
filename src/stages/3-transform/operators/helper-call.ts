import type { Node } from 'web-tree-sitter';
import {
  blockStatements,
  declarationsOfWritten,
  type StatementRun,
} from '../../../lang/java/extraction.js';
import { helperNames } from '../../../lang/java/naming.js';
import { field, indentationOf, kids, nameOf } from '../../../lang/java/syntax.js';
import { insertedAfter, lineAt } from './added-members.js';
import {
  callOfValuesAtHand,
  focusRuns,
  headerBugBody,
  isNoStep,
  planExtraction,
  writeExtraction,
  withExtractionContext,
  type ExtractionContext,
} from './extract-method.js';
import { preludeLength } from './pipeline-split.js';
import type { TransformCandidate, TransformOperator, TransformSite } from './types.js';

/*
 * Helper Call Insertion: the statements around the bug move into a private helper next to their
 * method, named after what they do, and the method calls it. The call chain from the witness to
 * the bug gains a frame; nothing else changes. Parameter and result types come from javac. A
 * method's whole body is never moved: a method that only calls its helper with its own
 * parameters, under a name made from its own, is a refactoring no maintainer writes.
 */

/** How many movable runs, from the innermost statement outwards, are offered per site. */
const RUNS_PER_SITE = 3;

/** Whether the run is every statement of its member's body. */
function isWholeBody(run: StatementRun): boolean {
  return (
    field(run.member, 'body')?.equals(run.block) === true &&
    blockStatements(run.block).length === run.statements.length
  );
}

/**
 * Runs of statements holding the focus: the innermost first, then each enclosing statement,
 * none the whole body. For a bug in the header, the body after its guard clauses.
 */
export function runsAround(root: Node, focus: TransformSite['focus']): StatementRun[] {
  const runs: StatementRun[] = [];
  for (const focused of focusRuns(root, focus)) {
    const { member, block } = focused;
    const siblings = blockStatements(block);
    const index = (statement: Node) => siblings.findIndex((known) => known.equals(statement));
    // Where the run assigns locals declared before it in its block, the run from their
    // declarations on: the helper owns them (a counter moves with the loop that counts).
    const declared = declarationsOfWritten(focused).map(index);
    const widened =
      declared.length > 0
        ? siblings.slice(Math.min(...declared), index(focused.statements.at(-1)!) + 1)
        : undefined;
    for (const run of [focused, ...(widened ? [{ member, block, statements: widened }] : [])]) {
      runs.push(run);
      if (field(member, 'body')?.equals(block)) {
        // With the rest of the body too: a loop that returns early moves with the fallback after it.
        const tail = siblings.slice(index(run.statements[0]!));
        if (tail.length > run.statements.length) {
          runs.push({ member, block, statements: tail });
        }
      }
    }
  }
  if (runs.length > 0) return runs.filter((run) => !isWholeBody(run));
  const body = headerBugBody(root, focus);
  if (!body) return [];
  const statements = body.statements.slice(preludeLength(body.member, body.statements));
  return statements.length < body.statements.length ? [{ ...body, statements }] : [];
}

function helperFor(
  context: ExtractionContext,
  focus: TransformSite['focus'],
  run: StatementRun,
  taken: Set<string>,
): TransformCandidate | undefined {
  // A helper that only hands values at hand to one call forwards or wraps it; it does no work
  // (`containsHeaderMap(headerMap, name)` returning `headerMap.containsKey(name)`).
  const [only, ...more] = run.statements;
  const wraps =
    more.length === 0 &&
    only?.type === 'return_statement' &&
    callOfValuesAtHand(kids(only)[0], false);
  if (wraps || isNoStep(run)) return undefined;
  const plan = planExtraction(context, run);
  if (!plan) return undefined;
  const { result } = plan;
  const [name] = helperNames(
    run.statements,
    {
      member: plan.memberName,
      ...(result.kind === 'local' ? { result: result.declaration.name } : {}),
    },
    taken,
  );
  if (!name) return undefined;
  const { source, style } = context;
  const helper = writeExtraction(context, plan, name, { focus });
  const first = run.statements[0]!;
  const firstLine = lineAt(source, first.startIndex);
  const lastLine = lineAt(source, helper.end);
  return {
    description: `${nameOf(run.member)}: lines ${firstLine}–${lastLine} moved into private ${name}(…)`,
    edits: [
      {
        start: helper.start,
        end: helper.end,
        text: `${indentationOf(source, first)}${helper.call}`,
      },
      insertedAfter(run.member, helper.text, style),
    ],
    added: [name],
  };
}

export const helperCallInsertion: TransformOperator = {
  kind: 'transform',
  id: 't_call_stack_deepen_v1',
  candidates: (site) =>
    withExtractionContext(site, (context, taken) =>
      runsAround(context.root, site.focus)
        .flatMap((run) => helperFor(context, site.focus, run, taken) ?? [])
        .slice(0, RUNS_PER_SITE),
    ),
};
