import { blockStatements, enclosingMember } from '../../../lang/java/extraction.js';
import { applierNames, extractorNames, helperNames, plainName } from '../../../lang/java/naming.js';
import { fileStyle } from '../../../lang/java/style.js';
import type { Node } from 'web-tree-sitter';
import { directlyIn } from '../../../lang/java/scopes.js';
import {
  descendants,
  field,
  indentationOf,
  kids,
  modifierWords,
  nameOf,
  withJavaTree,
} from '../../../lang/java/syntax.js';
import { lineAt, takenNames } from './added-members.js';
import {
  callsInPlace,
  delegatedFoci,
  isNoStep,
  nextLineStart,
  planExtraction,
  writeExtraction,
  type ExtractedMethod,
  type ExtractionContext,
  type ExtractionPlan,
} from './extract-method.js';
import type { TransformCandidate, TransformOperator, TransformSite } from './types.js';

/*
 * Pipeline Stage Split: the body of the method holding the bug becomes two or three ordered
 * private stages, each a consecutive run of its statements, called in sequence where they were.
 * A stage passes on at most one value (the local the later stages read), so each is a plain
 * method; the bug ends up inside one of them.
 */

/** Bodies longer than this are a method to refactor by hand, not to cut mechanically. */
const MAX_STATEMENTS = 40;
const MIN_STAGES = 2;
const PIPELINES_PER_SITE = 3;

/** Every way to cut `count` statements into 2 or 3 non-empty consecutive stages: the cut indices. */
export function stageCuts(count: number): number[][] {
  const cuts: number[][] = [];
  for (let first = 1; first < count; first++) {
    cuts.push([first]);
    for (let second = first + 1; second < count; second++) cuts.push([first, second]);
  }
  return cuts;
}

/**
 * How natural a cut reads, higher first: at the blank lines the author put between steps, three
 * stages for a long body and two for a short one, stages of even length.
 */
export function cutScore(cuts: readonly number[], count: number, blankBefore: ReadonlySet<number>) {
  const bounds = [0, ...cuts, count];
  const sizes = bounds.slice(1).map((end, i) => end - bounds[i]!);
  const atBlanks = cuts.filter((cut) => blankBefore.has(cut)).length;
  const wanted = count >= 6 ? 2 : 1;
  return (
    atBlanks * 100 - Math.abs(cuts.length - wanted) * 10 - (Math.max(...sizes) - Math.min(...sizes))
  );
}

/** A stage's name; `value` is what the stage before it passed on, if anything. */
function stageName(
  plan: ExtractionPlan,
  value: ExtractionPlan | undefined,
  taken: ReadonlySet<string>,
): string | undefined {
  const { statements } = plan.run;
  let names: string[];
  if (plan.result.kind === 'local') {
    names = extractorNames(
      statements,
      { name: plan.result.declaration.name, type: plan.returnType },
      taken,
    );
  } else if (value?.result.kind === 'local') {
    names = applierNames(
      statements,
      { name: value.result.declaration.name, type: value.returnType },
      plan.memberName,
      taken,
    );
  } else {
    // The last stage returns what the method returns: it is named for what it does.
    names = helperNames(statements, { member: plan.memberName }, taken);
  }
  return plainName(names, plan.memberName);
}

/**
 * How many leading statements stay in the method before the stages: guard clauses that return
 * (`if (obj == null) { return false; }`), which a stage could not leave the method from, and
 * final constants every stage may read (`final int prime = 31;`; an empty accumulator such as
 * `new StringBuilder()` belongs to the stage that fills it).
 */
export function preludeLength(member: Node, statements: readonly Node[]): number {
  let length = 0;
  for (const statement of statements.slice(0, -1)) {
    const guard =
      statement.type === 'if_statement' &&
      descendants(statement, 'return_statement').some((r) => directlyIn(r, member));
    // Final: `String[] labels = null;` is a local the next step assigns, not a constant.
    const constant =
      statement.type === 'local_variable_declaration' &&
      modifierWords(statement).includes('final') &&
      kids(statement)
        .filter((k) => k.type === 'variable_declarator')
        .every((declarator) => /literal$/.test(field(declarator, 'value')?.type ?? ''));
    if (!guard && !constant) break;
    length++;
  }
  return length;
}

/** The pipelines of the method holding `focus`, most natural first. */
function pipelinesAt(
  root: Node,
  site: TransformSite,
  focus: TransformSite['focus'],
): TransformCandidate[] {
  const { source } = site;
  const member = enclosingMember(root.descendantForIndex(focus.start) ?? root);
  const body = member ? field(member, 'body') : null;
  // A bug in the header (a misnamed equals) stays there; the body still becomes stages.
  if (!member || body?.type !== 'block') return [];
  const all = blockStatements(body);
  const statements = all.slice(preludeLength(member, all));
  const count = statements.length;
  if (count < MIN_STAGES || all.length > MAX_STATEMENTS) return [];
  // The bug must end up in a stage, not in the guards that stay.
  if (focus.start >= body.startIndex && focus.start < statements[0]!.startIndex) {
    return [];
  }
  const context: ExtractionContext = {
    root,
    source,
    model: site.model,
    style: fileStyle(source, root),
  };
  const plans = new Map<string, ExtractionPlan | undefined>();
  const planOf = (from: number, to: number) => {
    const key = `${from}:${to}`;
    if (!plans.has(key)) {
      const run = { member, block: body, statements: statements.slice(from, to) };
      plans.set(key, isNoStep(run) ? undefined : planExtraction(context, run));
    }
    return plans.get(key);
  };
  const blankBefore = new Set(
    statements
      .map((statement, i) => ({ statement, i }))
      .filter(
        ({ statement, i }) =>
          i > 0 &&
          /\n[ \t]*\r?\n/.test(source.slice(statements[i - 1]!.endIndex, statement.startIndex)),
      )
      .map(({ i }) => i),
  );
  const taken = takenNames(root, site.model);
  const ordered = stageCuts(count).sort(
    (a, b) => cutScore(b, count, blankBefore) - cutScore(a, count, blankBefore),
  );
  const candidates: TransformCandidate[] = [];
  for (const cuts of ordered) {
    const bounds = [0, ...cuts, count];
    const stagePlans = bounds.slice(1).map((end, i) => planOf(bounds[i]!, end));
    if (stagePlans.some((plan) => !plan)) continue;
    const names = new Set(taken);
    const helpers: ExtractedMethod[] = [];
    for (const [index, plan] of (stagePlans as ExtractionPlan[]).entries()) {
      const name = stageName(plan, stagePlans[index - 1], names);
      if (!name) break;
      names.add(name);
      const previous = helpers[helpers.length - 1];
      helpers.push(
        writeExtraction(context, plan, name, {
          ...(previous ? { movedFrom: nextLineStart(source, previous.end) } : {}),
          focus: focus,
        }),
      );
    }
    if (helpers.length !== stagePlans.length) continue;
    const added = helpers.map((helper) => helper.name);
    candidates.push({
      description: `${nameOf(member)}: lines ${lineAt(source, statements[0]!.startIndex)}–${lineAt(source, body.endIndex)} split into stages ${added.join(', ')}`,
      edits: callsInPlace(context, member, helpers, indentationOf(source, statements[0]!)),
      added,
    });
    if (candidates.length === PIPELINES_PER_SITE) break;
  }
  return candidates;
}

export const pipelineStageSplit: TransformOperator = {
  kind: 'transform',
  id: 't_pipeline_stage_split_v1',
  candidates: (site) =>
    withJavaTree(site.source, (root) => {
      const direct = pipelinesAt(root, site, site.focus);
      if (direct.length > 0) return direct;
      for (const caller of delegatedFoci(root, site.focus)) {
        const delegated = pipelinesAt(root, site, caller);
        if (delegated.length > 0) return delegated;
      }
      return [];
    }),
};
