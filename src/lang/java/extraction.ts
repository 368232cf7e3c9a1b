import type { Node } from 'web-tree-sitter';
import {
  directlyIn,
  localDeclarations,
  resolveLocal,
  valueNames,
  type LocalDeclaration,
} from './scopes.js';
import { ancestor, descendants, field, isLoop, kids, METHOD_TYPES, within } from './syntax.js';

/*
 * Whether a run of statements can move into a method of its own without changing what it does:
 * which locals it reads (they become parameters), which one it declares for the code after it
 * (the helper returns it), and the exits that would not survive the move. Types are not decided
 * here: the caller takes them from the compiler (see toolchains/jvm/source-model.ts).
 */

/** Consecutive statements of one block. */
export interface StatementRun {
  member: Node;
  block: Node;
  statements: Node[];
}

export type ExtractionResult =
  /** The run is the tail of the member's body: the helper returns what the member returns. */
  | { kind: 'tail' }
  /** The code after the run reads one local the run declares: the helper returns its value. */
  | { kind: 'local'; declaration: LocalDeclaration; statement: Node }
  | { kind: 'none' };

export type Extraction =
  | {
      kind: 'Extractable';
      /** Outer locals and parameters the run reads, in order of first use. */
      inputs: LocalDeclaration[];
      result: ExtractionResult;
    }
  | { kind: 'Refused'; reason: string };

const refused = (reason: string): Extraction => ({ kind: 'Refused', reason });

/** The statements of a block (comments left out). */
export function blockStatements(block: Node): Node[] {
  return kids(block).filter((child) => !child.type.endsWith('comment'));
}

/** Whether a jump inside `run` leaves it (a break or continue to a loop or label outside it). */
function escapingJump(run: Node[], member: Node): Node | undefined {
  for (const statement of run) {
    for (const jump of descendants(statement, [
      'break_statement',
      'continue_statement',
      'yield_statement',
    ])) {
      if (!directlyIn(jump, member)) continue;
      if (jump.type === 'yield_statement') return jump;
      const label = kids(jump).find((k) => k.type === 'identifier')?.text;
      const targets = (node: Node): boolean => {
        if (label) return node.type === 'labeled_statement' && kids(node)[0]?.text === label;
        return jump.type === 'break_statement'
          ? isLoop(node) || node.type === 'switch_expression' || node.type === 'switch_block'
          : isLoop(node);
      };
      let target: Node | null = jump.parent;
      while (target && !targets(target)) target = target.parent;
      if (!target || !run.some((outer) => within(target!, outer))) return jump;
    }
  }
  return undefined;
}

function writes(run: Node[]): Node[] {
  const targets: Node[] = [];
  for (const statement of run) {
    for (const assignment of descendants(statement, 'assignment_expression')) {
      const left = field(assignment, 'left');
      if (left) targets.push(left);
    }
    for (const update of descendants(statement, 'update_expression')) {
      const operand = kids(update)[0];
      if (operand) targets.push(operand);
    }
  }
  return targets;
}

/**
 * The statements of `run`'s block before it that declare locals the run assigns: moving them
 * with it lets the helper own those locals (`int count = 0;` with the loop that counts).
 */
export function declarationsOfWritten(run: StatementRun): Node[] {
  const declarations = localDeclarations(run.member);
  const siblings = blockStatements(run.block);
  const first = siblings.findIndex((statement) => statement.equals(run.statements[0]!));
  const before = siblings.slice(0, Math.max(0, first));
  const found: Node[] = [];
  for (const target of writes(run.statements)) {
    if (target.type !== 'identifier') continue;
    const statement = resolveLocal(target, declarations)?.node.parent;
    if (statement && before.some((sibling) => sibling.equals(statement))) {
      if (!found.some((known) => known.equals(statement))) found.push(statement);
    }
  }
  return found;
}

export function analyseExtraction(run: StatementRun): Extraction {
  const { member, block, statements } = run;
  const first = statements[0];
  const last = statements[statements.length - 1];
  if (!first || !last) return refused('no statements');
  const inRun = (node: Node) =>
    node.startIndex >= first.startIndex && node.endIndex <= last.endIndex;
  const body = field(member, 'body');
  const siblings = blockStatements(block);
  const isTail =
    body?.equals(block) === true && siblings[siblings.length - 1]?.equals(last) === true;

  for (const statement of statements) {
    if (statement.type === 'explicit_constructor_invocation')
      return refused('a this(…) or super(…) call');
    if (statement.type === 'local_class_declaration' || statement.type === 'class_declaration') {
      return refused('a local class');
    }
  }
  const returns = statements
    .flatMap((s) => descendants(s, 'return_statement'))
    .filter((r) => directlyIn(r, member));
  if (returns.length > 0 && !isTail) return refused('a return that would only leave the helper');
  const jump = escapingJump(statements, member);
  if (jump) return refused(`a ${jump.type.replace('_statement', '')} out of the statements`);

  const declarations = localDeclarations(member);
  if (declarations.some((d) => d.node.type === 'instanceof_expression' && inRun(d.node))) {
    return refused('a pattern variable');
  }
  const inputs: LocalDeclaration[] = [];
  for (const statement of statements) {
    for (const name of valueNames(statement)) {
      const declaration = resolveLocal(name, declarations);
      if (!declaration || inRun(declaration.node)) continue;
      if (!inputs.includes(declaration)) inputs.push(declaration);
    }
  }
  for (const target of writes(statements)) {
    if (target.type !== 'identifier') {
      // `this.x = …` in a constructor may be a final field's only assignment.
      if (member.type === 'constructor_declaration')
        return refused('a field assigned in a constructor');
      continue;
    }
    const declaration = resolveLocal(target, declarations);
    if (declaration && !inRun(declaration.node))
      return refused(`'${target.text}' is assigned, and read after`);
    if (!declaration && member.type === 'constructor_declaration') {
      return refused('a field assigned in a constructor');
    }
  }

  // Locals the run declares that the rest of the block reads.
  const after = siblings.slice(siblings.findIndex((s) => s.equals(last)) + 1);
  const carried = new Set<LocalDeclaration>();
  for (const statement of after) {
    for (const name of valueNames(statement)) {
      const declaration = resolveLocal(name, declarations);
      if (declaration && inRun(declaration.node)) carried.add(declaration);
    }
  }
  if (carried.size > 1) return refused(`${carried.size} locals are read after the statements`);
  if (isTail) return { kind: 'Extractable', inputs, result: { kind: 'tail' } };
  const [declaration] = [...carried];
  if (!declaration) return { kind: 'Extractable', inputs, result: { kind: 'none' } };
  const statement = declaration.node.parent;
  if (
    !statement ||
    statement.type !== 'local_variable_declaration' ||
    !statements.some((s) => s.equals(statement)) ||
    kids(statement).filter((k) => k.type === 'variable_declarator').length !== 1
  ) {
    return refused(`'${declaration.name}' is read after the statements from an inner scope`);
  }
  return { kind: 'Extractable', inputs, result: { kind: 'local', declaration, statement } };
}

/** The member a node is in (its innermost method or constructor). */
export function enclosingMember(node: Node): Node | null {
  return METHOD_TYPES.includes(node.type as (typeof METHOD_TYPES)[number])
    ? node
    : ancestor(node, METHOD_TYPES);
}
