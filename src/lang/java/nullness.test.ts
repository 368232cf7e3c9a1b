import type { Node } from 'web-tree-sitter';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  accessKey,
  dereferences,
  droppedNullGuard,
  isCollectionElement,
  nullChecks,
  provesNonNull,
  holdsForNull,
} from './nullness.js';
import { field, loadJavaGrammar, members, withJavaTree, withJavaTrees } from './syntax.js';

beforeAll(loadJavaGrammar);

/** `body` as the only method of a class, with the method's node. */
function inMethod<T>(body: string, use: (method: Node) => T): T {
  return withJavaTree(
    `class C {\n  Object f;\n  void m(String s, String[] a, java.util.List<String> list) {\n${body}\n  }\n}\n`,
    (root) => use([...members(root).values()][0]!),
  );
}

/** The condition of the method's first `if`. */
function firstCondition(method: Node): Node {
  const statement = field(method, 'body')!.namedChildren.find((n) => n?.type === 'if_statement')!;
  return field(statement, 'condition')!;
}

describe('null checks', () => {
  it('name a variable, a field through this, or an array slot, with the side true for null', () => {
    const checks = inMethod(
      'if (s == null || null != this.f || a[0] != null || java.util.Objects.isNull(s)) {}',
      (method) => nullChecks(method).map((check) => `${check.key} ${check.operator}`),
    );
    expect(checks).toEqual(['s ==', 'f !=', 'a[0] !=', 's ==']);
  });

  it('leave out comparisons of other values with null', () => {
    expect(inMethod('if (s.trim() == null || s == "") {}', (method) => nullChecks(method))).toEqual(
      [],
    );
  });

  it('know which conditions prove a value non-null and which hold whenever it is null', () => {
    inMethod('if (s != null && s.length() > 1) {}', (method) => {
      expect(provesNonNull(firstCondition(method), 's')).toBe(true);
      expect(holdsForNull(firstCondition(method), 's')).toBe(false);
    });
    inMethod('if (s == null || s.isEmpty()) {}', (method) => {
      expect(provesNonNull(firstCondition(method), 's')).toBe(false);
      expect(holdsForNull(firstCondition(method), 's')).toBe(true);
    });
  });
});

describe('dereferences', () => {
  it('are the uses that throw on null: a receiver, an indexed array, an iterated value', () => {
    const uses = inMethod(
      'int n = s.length(); String x = a[0]; for (String e : list) {} String t = s; foo(s);',
      (method) => ({
        s: dereferences(method, 's').map((d) => d.parent!.text),
        a: dereferences(method, 'a').length,
        list: dereferences(method, 'list').length,
      }),
    );
    expect(uses).toEqual({ s: ['s.length()'], a: 1, list: 1 });
  });

  it('see through casts and parentheses', () => {
    expect(
      inMethod('int n = ((String) s).length();', (method) => dereferences(method, 's')),
    ).toHaveLength(1);
  });

  it('name their value by the same key as a null check', () => {
    inMethod('this.f.hashCode();', (method) => {
      const [use] = dereferences(method, 'f');
      expect(accessKey(use!)).toBe('f');
    });
  });
});

describe('collection elements', () => {
  it('are array slots, enhanced-for variables and locals read from an element', () => {
    const elements = inMethod(
      'if (a[0] != null) {} String first = list.get(0); for (String e : list) { if (e != null) {} } if (first != null) {} if (s != null) {}',
      (method) =>
        nullChecks(method).map((check) => [
          check.key,
          isCollectionElement(check.key, check.node, method),
        ]),
    );
    expect(elements).toEqual([
      ['a[0]', true],
      ['e', true],
      ['first', true],
      ['s', false],
    ]);
  });
});

/** The one method of each version, compared by droppedNullGuard. */
function dropped(before: string, after: string) {
  const wrap = (body: string) => `class C {\n  int m(String s) {\n${body}\n  }\n}\n`;
  return withJavaTrees(wrap(before), wrap(after), (a, b) => {
    const result = droppedNullGuard(
      [...members(a).values()][0]!,
      [...members(b).values()][0]!,
      () => true,
    );
    return result && { key: result.key, deref: result.deref.parent!.text, moved: result.moved };
  });
}

describe('a dropped null guard', () => {
  const guarded = 'if (s == null) {\n  return 0;\n}\nreturn s.length();';

  it('is a null check gone with its dereference left unguarded', () => {
    expect(dropped(guarded, 'return s.length();')).toEqual({
      key: 's',
      deref: 's.length()',
      moved: false,
    });
  });

  it('is a dereference moved ahead of a check that is still there', () => {
    expect(
      dropped(guarded, 'int n = s.length();\nif (s == null) {\n  return 0;\n}\nreturn n;'),
    ).toEqual({ key: 's', deref: 's.length()', moved: true });
  });

  it('is not a check turned around, nor a check whose value is never dereferenced', () => {
    expect(dropped(guarded, 'if (s != null) {\n  return 0;\n}\nreturn s.length();')).toBeNull();
    expect(dropped('if (s == null) {\n  return 0;\n}\nreturn 1;', 'return 1;')).toBeNull();
  });

  it('is not a guard another check still provides (a non-null assertion)', () => {
    expect(
      dropped(
        'java.util.Objects.requireNonNull(s);\nif (s == null) {\n  return 0;\n}\nreturn s.length();',
        'java.util.Objects.requireNonNull(s);\nreturn s.length();',
      ),
    ).toBeNull();
  });
});
