import type { Node } from 'web-tree-sitter';
import {
  ancestor,
  descendants,
  field,
  kids,
  METHOD_TYPES,
  ownDescendants,
  within,
} from './syntax.js';

/*
 * Which declaration a simple name in a method refers to, by Java's scoping of locals and
 * parameters. A name no local or parameter declares is a field (or a constant of a supertype):
 * for rewrites that move code within its class, that needs no passing on.
 */

/** A local, parameter or catch/loop/resource variable of a method, and where it can be seen. */
export interface LocalDeclaration {
  name: string;
  /** The declarator or parameter node. */
  node: Node;
  /** The node whose extent (from `from` on) the name is visible in. */
  scope: Node;
  from: number;
  kind: 'parameter' | 'local' | 'lambda-parameter';
}

const OWNERS = [...METHOD_TYPES, 'class_body', 'enum_body', 'interface_body', 'lambda_expression'];

/** Every local name the member declares, its own lambdas included, not its nested classes'. */
export function localDeclarations(member: Node): LocalDeclaration[] {
  const found: LocalDeclaration[] = [];
  const add = (
    name: Node | null,
    node: Node,
    scope: Node,
    from: number,
    kind: LocalDeclaration['kind'],
  ) => {
    if (name) found.push({ name: name.text, node, scope, from, kind });
  };
  const parameters = field(member, 'parameters');
  for (const parameter of parameters ? kids(parameters) : []) {
    if (parameter.type === 'formal_parameter' || parameter.type === 'spread_parameter') {
      const declarator =
        parameter.type === 'spread_parameter'
          ? kids(parameter).find((k) => k.type === 'variable_declarator')
          : parameter;
      add(
        declarator ? field(declarator, 'name') : null,
        parameter,
        member,
        member.startIndex,
        'parameter',
      );
    }
  }
  for (const declaration of ownDescendants(member, 'local_variable_declaration')) {
    // In `for (int i = 0; …)` the name lives in the loop; elsewhere in the enclosing block.
    const scope = declaration.parent!;
    for (const declarator of kids(declaration).filter((k) => k.type === 'variable_declarator')) {
      add(field(declarator, 'name'), declarator, scope, declarator.startIndex, 'local');
    }
  }
  for (const loop of ownDescendants(member, 'enhanced_for_statement')) {
    add(field(loop, 'name'), loop, loop, loop.startIndex, 'local');
  }
  for (const clause of ownDescendants(member, 'catch_clause')) {
    const parameter = kids(clause).find((k) => k.type === 'catch_formal_parameter');
    if (parameter) add(field(parameter, 'name'), parameter, clause, clause.startIndex, 'local');
  }
  for (const resource of ownDescendants(member, 'resource')) {
    const statement = ancestor(resource, 'try_with_resources_statement');
    if (statement && field(resource, 'name')) {
      add(field(resource, 'name'), resource, statement, resource.startIndex, 'local');
    }
  }
  for (const lambda of ownDescendants(member, 'lambda_expression')) {
    const parameters = field(lambda, 'parameters');
    if (!parameters) continue;
    const names =
      parameters.type === 'identifier'
        ? [parameters]
        : descendants(parameters, ['identifier']).filter(
            (name) => name.parent?.type !== 'type_identifier',
          );
    for (const name of names) {
      if (
        name.parent?.type === 'formal_parameter' ||
        name.parent?.type === 'inferred_parameters' ||
        name.equals(parameters)
      ) {
        add(name, name, lambda, lambda.startIndex, 'lambda-parameter');
      }
    }
  }
  for (const pattern of ownDescendants(member, 'instanceof_expression')) {
    // `x instanceof Foo foo`: flow scoping is beyond this; a pattern name makes rewrites refuse.
    const name = field(pattern, 'name');
    if (name) add(name, pattern, member, pattern.startIndex, 'local');
  }
  return found;
}

/** Identifiers used as names of values (not of methods, fields selected, types or labels). */
export function valueNames(node: Node): Node[] {
  return descendants(node, 'identifier').filter((identifier) => {
    const parent = identifier.parent;
    if (!parent) return false;
    if (parent.type === 'method_invocation' && field(parent, 'name')?.equals(identifier))
      return false;
    if (parent.type === 'field_access' && field(parent, 'field')?.equals(identifier)) return false;
    if (parent.type === 'method_reference')
      return parent.lastNamedChild?.equals(identifier) !== true;
    if (['labeled_statement', 'break_statement', 'continue_statement'].includes(parent.type))
      return false;
    if (parent.type === 'variable_declarator' && field(parent, 'name')?.equals(identifier))
      return false;
    if (
      ['formal_parameter', 'catch_formal_parameter', 'resource', 'enhanced_for_statement'].includes(
        parent.type,
      )
    ) {
      return !field(parent, 'name')?.equals(identifier);
    }
    if (parent.type === 'inferred_parameters' || parent.type === 'lambda_expression') {
      return !(
        field(parent, 'parameters')?.equals(identifier) || parent.type === 'inferred_parameters'
      );
    }
    if (
      parent.type === 'scoped_identifier' ||
      parent.type === 'annotation' ||
      parent.type === 'marker_annotation'
    )
      return false;
    if (parent.type === 'element_value_pair' && field(parent, 'key')?.equals(identifier))
      return false;
    return true;
  });
}

/** The declaration a value name refers to, or undefined for a field or other member. */
export function resolveLocal(
  identifier: Node,
  declarations: readonly LocalDeclaration[],
): LocalDeclaration | undefined {
  let best: LocalDeclaration | undefined;
  for (const declaration of declarations) {
    if (declaration.name !== identifier.text) continue;
    if (!within(identifier, declaration.scope) || identifier.startIndex < declaration.from)
      continue;
    // The innermost scope wins (a lambda parameter over a method's local of the same name).
    if (!best || within(declaration.scope, best.scope)) best = declaration;
  }
  return best;
}

/** Whether a node is owned by the member itself, not by a lambda or class inside it. */
export function directlyIn(node: Node, member: Node): boolean {
  return ancestor(node, OWNERS)?.equals(member) === true;
}
