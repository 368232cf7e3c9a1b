import type { Node } from 'web-tree-sitter';
import {
  CLASS_TYPES,
  classMembers,
  descendants,
  field,
  kids,
  modifierWords,
  nameOf,
  parameterTypeNames,
  simpleTypeName,
  withJavaTree,
} from './syntax.js';

/*
 * The project's own types as far as inheritance goes: the class each extends and the methods it
 * declares with or without a body, by simple name, read from the sources alone (a rule's site is
 * judged before anything compiles). Types outside the project are unknown.
 */

/** A method's identity within its class, e.g. `equals(Object)`. */
export function methodSignature(method: Node): string {
  return `${nameOf(method)}(${parameterTypeNames(method).map(simpleTypeName).join(',')})`;
}

interface DeclaredType {
  /** The simple name of the class it extends, if it is a class that names one. */
  superclass: string | undefined;
  /** Signatures it declares without a body (interface methods, abstract methods). */
  abstract: Set<string>;
  /** Signatures it declares with a body. */
  concrete: Set<string>;
}

/** The simple name of the class a class declaration extends (`Top` for `extends Outer.Top<T>`). */
export function superclassName(type: Node): string | undefined {
  const superclass = type.type === 'class_declaration' ? field(type, 'superclass') : null;
  const named = superclass ? kids(superclass)[0] : undefined;
  return named && simpleTypeName(named.text);
}

function declaredType(type: Node): DeclaredType {
  const declared: DeclaredType = {
    superclass: superclassName(type),
    abstract: new Set(),
    concrete: new Set(),
  };
  for (const member of classMembers(type)) {
    if (member.type !== 'method_declaration') continue;
    const words = modifierWords(member);
    if (words.includes('static')) continue;
    const bodiless = field(member, 'body') === null && !words.includes('native');
    (bodiless ? declared.abstract : declared.concrete).add(methodSignature(member));
  }
  return declared;
}

export class ProjectTypes {
  private constructor(private readonly byName: ReadonlyMap<string, readonly DeclaredType[]>) {}

  /** The types the given Java sources declare, nested ones included. */
  static fromSources(sources: Iterable<string>): ProjectTypes {
    const byName = new Map<string, DeclaredType[]>();
    for (const source of sources) {
      withJavaTree(source, (root) => {
        for (const type of descendants(root, CLASS_TYPES)) {
          const name = nameOf(type);
          byName.set(name, [...(byName.get(name) ?? []), declaredType(type)]);
        }
      });
    }
    return new ProjectTypes(byName);
  }

  /**
   * A project superclass of `type` that declares `signature` abstract where no class between them
   * implements it, so that `type` must (an abstract class's `public abstract boolean
   * equals(Object)`: without its own equals the class does not compile). An interface declaring
   * one of Object's methods obliges nothing, Object's own implements it. Classes of the same simple
   * name are all taken, so an ambiguity refuses rather than allows.
   */
  obligingSuperclass(type: Node, signature: string): string | undefined {
    const seen = new Set<string>();
    const pending = [superclassName(type)].filter((name) => name !== undefined);
    for (let name = pending.shift(); name !== undefined; name = pending.shift()) {
      if (seen.has(name)) continue;
      seen.add(name);
      for (const declared of this.byName.get(name) ?? []) {
        if (declared.abstract.has(signature)) return name;
        if (!declared.concrete.has(signature) && declared.superclass !== undefined)
          pending.push(declared.superclass);
      }
    }
    return undefined;
  }
}
