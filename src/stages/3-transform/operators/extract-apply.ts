import { blockStatements, type StatementRun } from '../../../lang/java/extraction.js';
import { applierNames, extractorNames, plainName } from '../../../lang/java/naming.js';
import { field, indentationOf, nameOf } from '../../../lang/java/syntax.js';
import { lineAt } from './added-members.js';
import {
  callsInPlace,
  delegatedFoci,
  focusRuns,
  headerBugBody,
  isNoStep,
  nextLineStart,
  planExtraction,
  writeExtraction,
  withExtractionContext,
  type ExtractionContext,
} from './extract-method.js';
import type { TransformCandidate, TransformOperator, TransformSite } from './types.js';

/*
 * Extract-and-Apply Split: around the bug, the statements that compute a value move into an
 * extraction helper that returns it, and the statements that use it into an application helper
 * that takes it, so the value the bug computes or consumes crosses a method boundary. The value's
 * type, like every parameter's, comes from javac.
 */

/** At most this many statements on each side of the cut: a split, not a rewrite of the method. */
const SIDE_LIMIT = 4;
const SPLITS_PER_SITE = 3;

interface Split {
  extract: StatementRun;
  apply: StatementRun;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

/**
 * Cuts of the statements around the focus into a leading and a following run, shortest first,
 * the focus whole on one side. For a bug in the header, cuts anywhere in the body.
 */
function splitsAround(root: ExtractionContext['root'], focus: TransformSite['focus']): Split[] {
  const header = headerBugBody(root, focus);
  const splits: Split[] = [];
  for (const { member, block, statements } of header ? [header] : focusRuns(root, focus)) {
    const siblings = blockStatements(block);
    const count = siblings.length;
    const from = header ? count : siblings.findIndex((s) => s.equals(statements[0]!));
    const to = header ? -1 : from + statements.length - 1;
    const isBody = field(member, 'body')?.equals(block) === true;
    const cuts = header
      ? range(1, count - 1)
      : range(Math.max(1, from - SIDE_LIMIT + 1), Math.min(count - 1, to + SIDE_LIMIT)).filter(
          (cut) => cut <= from || cut > to,
        );
    const found: Split[] = [];
    for (const cut of cuts) {
      const starts = range(Math.max(0, cut - SIDE_LIMIT), cut - 1).filter(
        (start) => cut <= from || start <= from,
      );
      const ends = new Set(
        range(cut, Math.min(count, cut + SIDE_LIMIT) - 1).filter((end) => cut > to || end >= to),
      );
      // A method's last statements move together, so a return after the value goes along.
      if (isBody) ends.add(count - 1);
      for (const start of starts) {
        for (const end of ends) {
          found.push({
            extract: { member, block, statements: siblings.slice(start, cut) },
            apply: { member, block, statements: siblings.slice(cut, end + 1) },
          });
        }
      }
    }
    const size = (split: Split) => split.extract.statements.length + split.apply.statements.length;
    splits.push(...found.sort((a, b) => size(a) - size(b)));
  }
  return splits;
}

/** The split as two helpers, if the first run yields a value the second reads. */
function splitFor(
  context: ExtractionContext,
  focus: TransformSite['focus'],
  split: Split,
  taken: Set<string>,
): TransformCandidate | undefined {
  if (isNoStep(split.extract) || isNoStep(split.apply)) return undefined;
  const extraction = planExtraction(context, split.extract);
  if (extraction?.result.kind !== 'local') return undefined;
  const value = extraction.result.declaration;
  const application = planExtraction(context, split.apply);
  if (!application?.inputs.some((input) => input.node.equals(value.node))) return undefined;
  const { member } = split.extract;
  const extractName = plainName(
    extractorNames(
      split.extract.statements,
      { name: value.name, type: extraction.returnType },
      taken,
    ),
    extraction.memberName,
  );
  if (!extractName) return undefined;
  const applyName = plainName(
    application.result.kind === 'local'
      ? extractorNames(
          split.apply.statements,
          { name: application.result.declaration.name, type: application.returnType },
          new Set([...taken, extractName]),
        )
      : applierNames(
          split.apply.statements,
          { name: value.name, type: extraction.returnType },
          extraction.memberName,
          new Set([...taken, extractName]),
        ),
    extraction.memberName,
  );
  if (!applyName) return undefined;
  const { source } = context;
  const extracted = writeExtraction(context, extraction, extractName, { focus });
  const applied = writeExtraction(context, application, applyName, {
    movedFrom: nextLineStart(source, extracted.end),
    focus,
  });
  const first = split.extract.statements[0]!;
  return {
    description: `${nameOf(member)}: lines ${lineAt(source, first.startIndex)}–${lineAt(source, applied.end)} split into private ${extractName}(…) and ${applyName}(…)`,
    edits: callsInPlace(context, member, [extracted, applied], indentationOf(source, first)),
    added: [extractName, applyName],
  };
}

function splitsAt(
  context: ExtractionContext,
  focus: TransformSite['focus'],
  taken: Set<string>,
): TransformCandidate[] {
  const candidates: TransformCandidate[] = [];
  for (const split of splitsAround(context.root, focus)) {
    const candidate = splitFor(context, focus, split, taken);
    if (candidate) candidates.push(candidate);
    if (candidates.length === SPLITS_PER_SITE) break;
  }
  return candidates;
}

export const extractApplySplit: TransformOperator = {
  kind: 'transform',
  id: 't_extract_apply_split_v1',
  candidates: (site) =>
    withExtractionContext(site, (context, taken) => {
      const direct = splitsAt(context, site.focus, taken);
      if (direct.length > 0) return direct;
      for (const caller of delegatedFoci(context.root, site.focus)) {
        const delegated = splitsAt(context, caller, taken);
        if (delegated.length > 0) return delegated;
      }
      return [];
    }),
};
