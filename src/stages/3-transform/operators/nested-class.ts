import type { Node } from 'web-tree-sitter';
import { capitalized } from '../../../lang/java/naming.js';
import type { FileStyle } from '../../../lang/java/style.js';
import { declaringClass, descendants, field, nameOf } from '../../../lang/java/syntax.js';
import type { SourceModel } from '../../../toolchains/jvm/source-model.js';
import { methodOf } from './extract-method.js';

/*
 * What operators that bundle values into a private nested class share: whether the class can be
 * static (Java 8 allows no static member class in an inner class, and a static one cannot see the
 * outer class's type variables), the method type variables it must declare, a name no code of
 * the file already means, and its text.
 */

/** One field of a bundle: a value's name and the type javac spells for it. */
export interface BundleField {
  name: string;
  type: string;
}

export type NestedClassShape =
  | {
      kind: 'Nestable';
      isStatic: boolean;
      /** `<T extends Foo>` when the fields use the method's type variables, else ''. */
      typeParameters: string;
      /** `<T>` to name the class with, else ''. */
      typeArguments: string;
    }
  | { kind: 'Refused'; reason: string };

/** The simple names a type's spelling mentions (`Map<K, List<V>>` → Map, K, List, V). */
export function namesInType(type: string): string[] {
  return type.match(/[A-Za-z_$][\w$]*/g) ?? [];
}

/** javac's entry for a class declaration. */
export function modelTypeOf(model: SourceModel, owner: Node) {
  const name = field(owner, 'name');
  if (!name) return undefined;
  return model.types
    .filter(
      (type) =>
        type.name === name.text && type.start <= name.startIndex && name.endIndex <= type.end,
    )
    .sort((a, b) => b.start - a.start)[0];
}

/** How a class holding `fields` can be nested next to `member`, or why it cannot. */
export function nestedClassShape(
  model: SourceModel,
  member: Node,
  fields: readonly BundleField[],
): NestedClassShape {
  const refused = (reason: string): NestedClassShape => ({ kind: 'Refused', reason });
  const owner = declaringClass(member);
  if (!owner) return refused('a member of an anonymous class');
  // A class nested in an interface is public.
  if (owner.type === 'interface_declaration') return refused('a member of an interface');
  const type = modelTypeOf(model, owner);
  if (!type) return refused('javac does not see the declaring class');
  if (type.nesting === 'local' || type.nesting === 'anonymous') return refused('a local class');
  const localClasses = new Set(
    descendants(member, ['class_declaration', 'enum_declaration', 'record_declaration']).map(
      nameOf,
    ),
  );
  const used = new Set(fields.flatMap((f) => namesInType(f.type)));
  if ([...used].some((name) => localClasses.has(name))) return refused('a local class type');

  // The class type variables in scope: the owner's, and its outer classes' while it is inner.
  const classVariables = new Set<string>();
  const enclosing = model.types
    .filter((t) => t.start <= type.start && type.end <= t.end)
    .sort((a, b) => b.start - a.start);
  for (const outer of enclosing) {
    for (const variable of outer.typeParameters) classVariables.add(variable);
    if (outer.nesting !== 'member' || outer.modifiers.includes('static')) break;
    if (outer.kind !== 'class') break;
  }
  const inner =
    type.nesting === 'member' && type.kind === 'class' && !type.modifiers.includes('static');
  const method = methodOf(model, member);
  const methodVariables = method?.typeParameters ?? [];
  const declared = field(member, 'type_parameters');
  const needsMethodVariables = methodVariables.some((variable) => used.has(variable));
  const bounds = needsMethodVariables && declared ? namesInType(declared.text) : [];
  const needsClassVariables = [...used, ...bounds].some(
    (name) => classVariables.has(name) && !methodVariables.includes(name),
  );
  return {
    kind: 'Nestable',
    isStatic: !inner && !needsClassVariables,
    typeParameters: needsMethodVariables && declared ? declared.text : '',
    typeArguments: needsMethodVariables ? `<${methodVariables.join(', ')}>` : '',
  };
}

/** The first proposal that no name of the file already means (a type, a value, a member). */
export function freeTypeName(
  root: Node,
  model: SourceModel,
  proposals: readonly string[],
): string | undefined {
  const taken = new Set(
    descendants(root, ['identifier', 'type_identifier']).map((node) => node.text),
  );
  for (const type of model.types) taken.add(type.name);
  return proposals.find((name) => /^[A-Z][A-Za-z0-9]*$/.test(name) && !taken.has(name));
}

/** The name a value of a class goes by: its last word (`ScanState` → state), else all of it. */
export function variableNames(className: string): string[] {
  const words = className.split(/(?=[A-Z])/);
  const last = words[words.length - 1]!.toLowerCase();
  const whole = className.charAt(0).toLowerCase() + className.slice(1);
  return last === whole ? [whole] : [last, whole];
}

/**
 * A private nested class holding `fields`, indented like a member at `indent`. A parameter
 * object gets final fields set by its constructor; a context object plain fields that start at
 * their defaults.
 */
export function nestedClassText(options: {
  name: string;
  fields: readonly BundleField[];
  shape: Extract<NestedClassShape, { kind: 'Nestable' }>;
  withConstructor: boolean;
  indent: string;
  style: FileStyle;
}): string {
  const { name, fields, shape, withConstructor, indent, style } = options;
  const inner = indent + style.indentUnit;
  const header = [
    'private',
    ...(shape.isStatic ? ['static'] : []),
    'final',
    'class',
    `${name}${shape.typeParameters} {`,
  ].join(' ');
  const lines = [`${indent}${header}`];
  for (const value of fields) {
    lines.push(`${inner}${withConstructor ? 'final ' : ''}${value.type} ${value.name};`);
  }
  if (withConstructor) {
    const final = style.finalParameters ? 'final ' : '';
    const parameters = fields.map((value) => `${final}${value.type} ${value.name}`).join(', ');
    lines.push('', `${inner}${name}(${parameters}) {`);
    for (const value of fields) {
      lines.push(`${inner}${style.indentUnit}this.${value.name} = ${value.name};`);
    }
    lines.push(`${inner}}`);
  }
  lines.push(`${indent}}`);
  return lines.join(style.lineBreak);
}

/** Capitalised words of a lowerCamel name, e.g. checkLine → CheckLine. */
export function typeNameOf(words: readonly string[]): string {
  return words.map(capitalized).join('');
}
