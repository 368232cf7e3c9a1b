import type { Node } from 'web-tree-sitter';
import { seededRandom, shuffled } from '../../../core/random.js';
import { fileStyle } from '../../../lang/java/style.js';
import {
  classMembers,
  descendants,
  erasedType,
  field,
  hasSyntaxError,
  kids,
  METHOD_TYPES,
  modifierWords,
  nameOf,
  packageOf,
  parameterTypeNames,
  simpleTypeName,
  statementsOf,
  withJavaTree,
} from '../../../lang/java/syntax.js';
import { lineIndentation } from './rewrite.js';
import { importedNames, primaryClass } from './test-class.js';
import type { InputVariant, TestMethod } from './variants.js';

/*
 * Call amplification (DSpot's method adder, aimed at the slice): variants of a test method that
 * end with one more call, to a method of the slice (one gold changed, or holding a line the suite
 * missed), on an object the test holds (a local, a resource, a field of the test class), on a
 * fresh one, or on the class for a static method, with arguments drawn from small pools by
 * parameter type. Input amplification only varies calls a test already makes, so a method no
 * remaining test calls (the witness-drop control's very case) stays out of its reach. Types come
 * from the declarations as written; a call javac rejects is dropped with the other variants.
 */

export interface CallTarget {
  /** The declaring top-level class, package-qualified: `org.json.simple.JsonArray`. */
  className: string;
  /** The method's name; a constructor's is the class's simple name. */
  name: string;
  kind: 'method' | 'static' | 'constructor';
  /** Parameter types as declared, generics erased (`int`, `String`, `byte[]`). */
  parameters: string[];
  /**
   * A type a local can hold the result in, generics erased; package-qualified when the class's
   * file imports it (`java.util.List`); `void` when there is none.
   */
  returns: string;
  /** Whether `new C()` compiles from the class's package (no constructor, or one without parameters). */
  constructible: boolean;
}

function typeParameterNames(node: Node): string[] {
  const parameters = field(node, 'type_parameters');
  return parameters
    ? descendants(parameters, 'type_parameter').map((p) => kids(p)[0]?.text ?? '')
    : [];
}

/**
 * The methods and constructors of `source`'s top-level classes that span one of `lines` and a
 * test in the class's package can call: not private, not abstract, of a class that is not
 * abstract unless the method is static.
 */
export function callTargets(source: string, lines: readonly number[]): CallTarget[] {
  return withJavaTree(source, (root) => {
    if (hasSyntaxError(root)) return [];
    const packageName = packageOf(root);
    const imports = namedImports(root);
    const qualified = (type: string) =>
      type.replace(/^\w+/, (simple) => imports.get(simple) ?? simple);
    const targets: CallTarget[] = [];
    for (const owner of kids(root).filter((node) => node.type === 'class_declaration')) {
      const abstractClass = modifierWords(owner).includes('abstract');
      const className = packageName ? `${packageName}.${nameOf(owner)}` : nameOf(owner);
      const members = classMembers(owner);
      const constructors = members.filter((member) => member.type === 'constructor_declaration');
      const constructible =
        !abstractClass &&
        (constructors.length === 0 ||
          constructors.some(
            (member) =>
              parameterTypeNames(member).length === 0 && !modifierWords(member).includes('private'),
          ));
      const classTypeVariables = typeParameterNames(owner);
      for (const member of members) {
        if (!(METHOD_TYPES as readonly string[]).includes(member.type)) continue;
        const first = member.startPosition.row + 1;
        const last = member.endPosition.row + 1;
        if (!lines.some((line) => line >= first && line <= last)) continue;
        const words = modifierWords(member);
        if (words.includes('private') || words.includes('abstract')) continue;
        const isConstructor = member.type === 'constructor_declaration';
        const isStatic = words.includes('static');
        if (abstractClass && !isStatic) continue;
        const typeVariables = [...classTypeVariables, ...typeParameterNames(member)];
        const declared = isConstructor
          ? nameOf(owner)
          : (field(member, 'type')?.text ?? 'void') + (field(member, 'dimensions')?.text ?? '');
        const generic = typeVariables.some((name) => new RegExp(`\\b${name}\\b`).test(declared));
        targets.push({
          className,
          name: nameOf(member),
          kind: isConstructor ? 'constructor' : isStatic ? 'static' : 'method',
          parameters: parameterTypeNames(member),
          returns: generic ? 'Object' : qualified(erasedType(declared)),
          constructible,
        });
      }
    }
    return targets;
  });
}

/** An object the test holds, and where a call on it can go: the end of the block it lives in. */
interface Holder {
  name: string;
  /** Its declared type, generics erased and simple: `JsonArray`. */
  type: string;
  /** The block (or try body) whose end is still in its scope. */
  block: Node;
}

/** Locals and try-with-resources of the body, each with the block it is in scope to the end of. */
function heldObjects(body: Node, fields: readonly Holder[]): Holder[] {
  const held: Holder[] = fields.map((holder) => ({ ...holder, block: body }));
  for (const declaration of descendants(body, 'local_variable_declaration')) {
    const block = declaration.parent;
    if (block?.type !== 'block') continue;
    const declared = field(declaration, 'type')?.text ?? '';
    for (const declarator of kids(declaration).filter((k) => k.type === 'variable_declarator')) {
      const value = field(declarator, 'value');
      const type =
        declared === 'var'
          ? value?.type === 'object_creation_expression'
            ? (field(value, 'type')?.text ?? '')
            : ''
          : declared;
      if (type) held.push({ name: nameOf(declarator), type: simpleTypeName(type), block });
    }
  }
  for (const resource of descendants(body, 'resource')) {
    const type = field(resource, 'type')?.text;
    const name = field(resource, 'name')?.text;
    const tryBody = resource.parent?.parent && field(resource.parent.parent, 'body');
    if (type && name && tryBody) held.push({ name, type: simpleTypeName(type), block: tryBody });
  }
  return held;
}

/** The test class's fields: objects every test method can call on. */
function testFields(testClass: Node): Holder[] {
  return classMembers(testClass)
    .filter((member) => member.type === 'field_declaration')
    .flatMap((member) => {
      const type = field(member, 'type')?.text ?? '';
      return kids(member)
        .filter((k) => k.type === 'variable_declarator')
        .map((declarator) => ({
          name: nameOf(declarator),
          type: simpleTypeName(type),
          block: member,
        }));
    });
}

const INTEGRAL = new Set(['int', 'long', 'short', 'byte', 'Integer', 'Long', 'Short', 'Byte']);
const BOXES = new Set([
  'Integer',
  'Long',
  'Short',
  'Byte',
  'Boolean',
  'Character',
  'Double',
  'Float',
]);

/** Literals of a type's pool: small, edge and the test's own values. */
function pool(
  type: string,
  literals: { ints: string[]; strings: string[] },
  held: Holder[],
): string[] {
  const nullable = (values: string[]) => (BOXES.has(type) ? [...values, 'null'] : values);
  if (INTEGRAL.has(type)) {
    const values = [...new Set(['0', '1', '-1', '2', ...literals.ints])];
    const typed = values.map((value) => {
      if (type === 'long' || type === 'Long') return `${value}L`;
      if (type === 'short' || type === 'Short') return `(short) ${value}`;
      if (type === 'byte' || type === 'Byte') return `(byte) ${value}`;
      return value;
    });
    return nullable(typed);
  }
  if (type === 'boolean' || type === 'Boolean') return nullable(['true', 'false']);
  if (type === 'char' || type === 'Character') return nullable(["'a'", "'\"'", "' '"]);
  if (type === 'double' || type === 'Double') return nullable(['0.0', '1.5', '-1.0', 'Double.NaN']);
  if (type === 'float' || type === 'Float') return nullable(['0.0f', '1.5f', '-1.0f', 'Float.NaN']);
  if (type === 'String' || type === 'CharSequence' || type === 'Object') {
    return [...new Set(['""', '"a"', '"\\""', ...literals.strings, 'null'])];
  }
  const array = /^(\w+)\[\]$/.exec(type);
  if (array) {
    const element = pool(array[1]!, literals, held).filter((value) => value !== 'null');
    return [`new ${array[1]}[0]`, `new ${array[1]}[] {${element.slice(0, 3).join(', ')}}`, 'null'];
  }
  const same = held.filter((holder) => holder.type === type).map((holder) => holder.name);
  return [...new Set([...same, 'null'])];
}

const JAVA_LANG = new Set([
  'String',
  'Object',
  'Number',
  'CharSequence',
  'Integer',
  'Long',
  'Short',
  'Byte',
  'Character',
  'Boolean',
  'Double',
  'Float',
]);
const PRIMITIVE_TYPES = /^(int|long|short|byte|char|boolean|double|float|void)(\[\])*$/;

/** The types a compilation unit imports by name: simple name → qualified name. */
function namedImports(root: Node): Map<string, string> {
  return new Map(
    importedNames(root)
      .filter((entry) => !entry.isStatic && !entry.name.endsWith('*'))
      .map((entry) => [entry.name.slice(entry.name.lastIndexOf('.') + 1), entry.name]),
  );
}

/**
 * The type to hold a call's result in, as the test can name it: a primitive or java.lang type;
 * an imported one the test imports too; one of the target's own package when the test is in it;
 * else Object, which holds anything without an import.
 */
function localType(
  target: CallTarget,
  testPackage: string,
  imported: ReadonlyMap<string, string>,
): string {
  const { returns } = target;
  const element = returns.replace(/(\[\])+$/, '');
  const simple = returns.slice(returns.lastIndexOf('.') + 1);
  if (PRIMITIVE_TYPES.test(returns) || JAVA_LANG.has(element)) return returns;
  if (element.includes('.'))
    return imported.has(simple.replace(/(\[\])+$/, '')) ? simple : 'Object';
  const ownPackage = target.className.slice(0, target.className.lastIndexOf('.'));
  return ownPackage === testPackage ? returns : 'Object';
}

/** Every combination of the pools' values, at most `limit`, in order. */
function combinations(pools: readonly string[][], limit: number): string[][] {
  let rows: string[][] = [[]];
  for (const values of pools) {
    rows = rows.flatMap((row) => values.map((value) => [...row, value])).slice(0, limit);
  }
  return rows;
}

/** A name for the call's result no identifier of the class uses yet. */
function freshName(taken: ReadonlySet<string>): string {
  let name = 'result';
  for (let n = 2; taken.has(name); n++) name = `result${n}`;
  return name;
}

/**
 * At most `max` variants of a test method, drawn by `seed`: the method with one call to a target
 * appended at the end of a block where its receiver is in scope. The Java grammar must be loaded.
 */
export function callVariants(
  classSource: string,
  method: TestMethod,
  targets: readonly CallTarget[],
  options: { seed: number; max: number },
): InputVariant[] {
  if (targets.length === 0) return [];
  return withJavaTree(classSource, (root) => {
    const testClass = primaryClass(root);
    const declaration = testClass
      ? classMembers(testClass).find(
          (member) => member.startIndex === method.range.start && nameOf(member) === method.name,
        )
      : undefined;
    const body = declaration && field(declaration, 'body');
    if (!testClass || !body) throw new Error(`${method.name} is not a test method of this class`);
    const samePackage = packageOf(root);
    const imported = namedImports(root);
    const { lineBreak, indentUnit } = fileStyle(classSource, root);
    const held = heldObjects(body, testFields(testClass));
    const literals = {
      ints: [
        // Digits only: the pool adds the suffix its parameter's type wants.
        ...new Set(
          descendants(body, 'decimal_integer_literal').map((node) =>
            node.text.replace(/[lL]$/, '').replace(/_/g, ''),
          ),
        ),
      ].slice(0, 2),
      strings: [
        ...new Set(
          descendants(body, 'string_literal')
            .map((node) => node.text)
            .filter((text) => !text.startsWith('"""') && text.length < 40),
        ),
      ].slice(0, 2),
    };
    const taken = new Set(descendants(testClass, 'identifier').map((node) => node.text));
    const result = freshName(taken);

    const candidates: { block: Node; statement: string; detail: string }[] = [];
    for (const target of targets) {
      const qualified =
        target.className.slice(0, target.className.lastIndexOf('.')) === samePackage
          ? target.className.slice(target.className.lastIndexOf('.') + 1)
          : target.className;
      const simpleClass = target.className.slice(target.className.lastIndexOf('.') + 1);
      const receivers: { text: string; block: Node }[] =
        target.kind === 'static'
          ? [{ text: qualified, block: body }]
          : target.kind === 'constructor'
            ? [{ text: '', block: body }]
            : [
                ...held
                  .filter((holder) => holder.type === simpleClass)
                  .map((holder) => ({ text: holder.name, block: holder.block })),
                ...(target.constructible ? [{ text: `new ${qualified}()`, block: body }] : []),
              ];
      const pools = target.parameters.map((type) => pool(type, literals, held));
      for (const receiver of receivers) {
        for (const args of combinations(pools, 64)) {
          const call =
            target.kind === 'constructor'
              ? `new ${qualified}(${args.join(', ')})`
              : `${receiver.text}.${target.name}(${args.join(', ')})`;
          const returns =
            target.kind === 'constructor' ? qualified : localType(target, samePackage, imported);
          candidates.push({
            block: receiver.block.type === 'field_declaration' ? body : receiver.block,
            statement: returns === 'void' ? `${call};` : `${returns} ${result} = ${call};`,
            detail: `${call} added`,
          });
        }
      }
    }

    const drawn = shuffled(candidates, seededRandom(options.seed)).slice(0, options.max);
    return drawn.map((candidate, index) => {
      const { block } = candidate;
      const statements = statementsOf(block);
      const indent =
        statements.length > 0
          ? lineIndentation(classSource, statements[0]!.startIndex)
          : lineIndentation(classSource, block.startIndex) + indentUnit;
      const closing = block.endIndex - 1;
      const before = classSource.slice(body.startIndex, closing).trimEnd();
      const text =
        `${before}${lineBreak}${indent}${candidate.statement}${lineBreak}` +
        `${lineIndentation(classSource, closing)}${classSource.slice(closing, body.endIndex)}`;
      const line = classSource.slice(0, closing).split('\n').length;
      return {
        id: `call-added@${index}`,
        method: method.name,
        operator: 'call-added' as const,
        detail: `${candidate.detail} (line ${line})`,
        body: text,
      };
    });
  });
}

/**
 * An input variant with one call appended (DSpot's second round: an input changed, then a call),
 * so a call can meet the state a changed input left, a null element, say.
 */
export function callAfter(
  classSource: string,
  method: TestMethod,
  variant: InputVariant,
  targets: readonly CallTarget[],
  options: { seed: number },
): InputVariant[] {
  const varied =
    classSource.slice(0, method.bodyRange.start) +
    variant.body +
    classSource.slice(method.bodyRange.end);
  return callVariants(varied, method, targets, { seed: options.seed, max: 1 }).map((call) => ({
    ...call,
    id: `${variant.id}+${call.id}`,
    detail: `${variant.detail}, then ${call.detail}`,
  }));
}
