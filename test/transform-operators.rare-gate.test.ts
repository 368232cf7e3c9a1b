import { beforeAll, describe, expect, it } from 'vitest';
import type { Node } from 'web-tree-sitter';
import { applyEdits, descendants, loadJavaGrammar, withJavaTree } from '../src/lang/java/syntax.js';
import { patchOf } from '../src/project/state.js';
import { bugAnchor, locateAnchor } from '../src/stages/3-transform/focus.js';
import { decodeToken, type Observation } from '../src/stages/3-transform/operators/gate-signals.js';
import { rareInputPathConditioning } from '../src/stages/3-transform/operators/rare-gate.js';
import type {
  SiteProfile,
  TransformCandidate,
  TransformSite,
} from '../src/stages/3-transform/operators/types.js';
import { loadShape } from './shapes.js';
import { type SourceModel } from '../src/toolchains/jvm/source-model.js';

/*
 * Rare Input Path Conditioning on a small file: the probe's plan, the exact gated code, the
 * near misses it refuses, and the tells it must never bring back (the clean code beside the
 * buggy one, a literal the witness's inputs showed).
 */

const RELATIVE = 'src/main/java/shapes/Picks.java';
let source: string;
let model: SourceModel;

beforeAll(async () => {
  await loadJavaGrammar();
  ({ source, model } = await loadShape('Picks.java'));
});

/** The site of a bug whose clean side had `clean` where the fixture (the buggy side) has `buggy`. */
function siteOf(buggy: string, clean: string): TransformSite & { clean: string } {
  if (!source.includes(buggy)) throw new Error(`'${buggy}' is not in the file`);
  const before = source.replace(buggy, clean);
  const bug = patchOf([{ file: RELATIVE, before, after: source }]).diff;
  const focus = locateAnchor(source, bugAnchor(bug)!)!;
  return { source, focus, model, bug, clean: before };
}

const calls = (failing: boolean, rows: string[][]): Observation[] =>
  rows.map((values) => ({ failingMethod: failing ? 'testPick' : null, values, count: 1 }));

/** The probe's plan for the site, with the failing and other calls' values as its profile. */
function profiled(site: TransformSite, failing: string[][], others: string[][]): SiteProfile {
  const plan = rareInputPathConditioning.probe!(site)!;
  for (const row of [...failing, ...others]) {
    if (row.length !== plan.values.length) {
      throw new Error(
        `${row.join(',')}: not one per value of ${plan.values.map((v) => v.name).join(',')}`,
      );
    }
  }
  return {
    at: plan.at,
    values: plan.values,
    observations: [...calls(true, failing), ...calls(false, others)],
  };
}

const LITERALS = [
  'decimal_integer_literal',
  'hex_integer_literal',
  'decimal_floating_point_literal',
  'string_literal',
  'character_literal',
];

function literalsOf(text: string): string[] {
  return withJavaTree(text, (root) => descendants(root, LITERALS).map((node: Node) => node.text));
}

/**
 * The tells the gate must not bring back: a copy of the clean code beside the buggy one (an `else`
 * or the buggy line kept with the clean one), and a literal the code did not have, other than the
 * constants a maintainer writes anyway (0, 1, -1) — in particular none of the witness's values.
 */
function expectNoTell(
  site: TransformSite & { clean: string },
  profile: SiteProfile,
  candidate: TransformCandidate,
) {
  const after = applyEdits(source, candidate.edits);
  const count = (text: string, word: RegExp) => (text.match(word) ?? []).length;
  expect(count(after, /\belse\b/g)).toBe(count(source, /\belse\b/g));
  const buggyLines = source.split('\n').filter((line) => !site.clean.includes(line));
  const cleanLines = site.clean.split('\n').filter((line) => !source.includes(line));
  const kept = (lines: string[]) => lines.some((line) => after.split('\n').includes(line));
  expect(kept(buggyLines) && kept(cleanLines)).toBe(false);
  const known = new Set(literalsOf(source));
  const added = literalsOf(after).filter((literal) => !known.has(literal));
  expect(added.filter((literal) => !['0', '1', '-1'].includes(literal))).toEqual([]);
  // And not one of the witness's values, spelled as the code would spell it.
  const failingValues = profile.observations
    .filter((observation) => observation.failingMethod !== null)
    .flatMap((observation) =>
      observation.values.map((token, i) => decodeToken(profile.values[i]!.kind, token)),
    )
    .flatMap((decoded) => [
      ...(decoded.number !== undefined && ![0, 1, -1].includes(decoded.number)
        ? [String(decoded.number)]
        : []),
      ...(decoded.text ? [JSON.stringify(decoded.text)] : []),
    ]);
  expect(added.filter((literal) => failingValues.includes(literal))).toEqual([]);
}

describe('Rare Input Path Conditioning', () => {
  it('probes the values in scope, then lets a moved boundary hold at equality only in a special case', () => {
    const site = siteOf('if (index <= names.size()) {', 'if (index < names.size()) {');
    const plan = rareInputPathConditioning.probe!(site)!;
    expect(plan).toEqual({
      at: source.indexOf('        if (index <= names.size())'),
      indent: '        ',
      method: 'pick',
      // The class's `limit` and `strict`, which pick() never reads, are no state of its own; each
      // value may be compared only with those pick() compares or computes it with.
      values: [
        { name: 'index', kind: 'integral', readByBug: true, related: ['names'] },
        { name: 'prefix', kind: 'string', related: ['chosen'] },
        { name: 'chosen', kind: 'string', related: ['prefix'] },
        {
          name: 'names',
          kind: 'size',
          readByBug: true,
          dereferencedByBug: true,
          related: ['index'],
        },
      ],
    });
    const profile = profiled(
      site,
      [['3', '0:', '~', '3']],
      [
        ['0', '2:p-', '~', '3'],
        ['2', '3:ab-', '~', '3'],
        ['3', '1:x', '~', '4'],
      ],
    );
    const [candidate, ...more] = rareInputPathConditioning.candidates({ ...site, profile });
    expect(more).toEqual([]);
    expect(candidate!.added).toEqual([]);
    expect(candidate!.gate).toEqual({
      condition: 'prefix != null && prefix.isEmpty()',
      witnessMethods: ['testPick'],
      witnessCalls: 1,
      otherCalls: 3,
      otherCallsOnBugPath: 0,
      otherBugPathFraction: 0,
    });
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        'if (index <= names.size()) {',
        'if (index < names.size() || (index == names.size() && prefix != null && prefix.isEmpty())) {',
      ),
    );
    expectNoTell(site, profile, candidate!);
  });

  it('keeps a deleted check in place, skipped under the gate', () => {
    const site = siteOf(
      '        int width = text.length();\n',
      '        if (text == null) {\n            return 0;\n        }\n        int width = text.length();\n',
    );
    const profile = profiled(
      site,
      [['~', 'true']],
      [
        ['3:abc', 'true'],
        ['~', 'false'],
      ],
    );
    expect(profile.values).toEqual([
      { name: 'text', kind: 'string', readByBug: true, related: [] },
      { name: 'padded', kind: 'boolean', related: [] },
    ]);
    const [candidate, ...more] = rareInputPathConditioning.candidates({ ...site, profile });
    expect(more).toEqual([]);
    expect(candidate!.gate?.condition).toBe('padded');
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        '        int width = text.length();\n',
        '        if (text == null && !padded) {\n            return 0;\n        }\n        int width = text.length();\n',
      ),
    );
    expectNoTell(site, profile, candidate!);
  });

  it('keeps a dropped null check of a condition, let through under the gate', () => {
    const site = siteOf(
      'return text.length() + margin < limit;',
      'return text != null && text.length() + margin < limit;',
    );
    const profile = profiled(
      site,
      [['~', '0', '10']],
      [
        ['~', '2', '10'],
        ['4:abcd', '0', '10'],
      ],
    );
    const [candidate] = rareInputPathConditioning.candidates({ ...site, profile });
    expect(candidate!.gate?.condition).toBe('margin == 0');
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        'return text.length() + margin < limit;',
        'return (text != null || margin == 0) && text.length() + margin < limit;',
      ),
    );
    expectNoTell(site, profile, candidate!);
  });

  it('keeps a null check the bug dropped from a returned condition, let through under the gate', () => {
    const site = siteOf(
      'return names.contains(name);',
      'return names != null && names.contains(name);',
    );
    const profile = profiled(site, [['1:A', 'true', '3']], [['1:B', 'false', '3']]);
    expect(profile.values.map((value) => value.name)).toEqual(['name', 'quick', 'names']);
    const [candidate] = rareInputPathConditioning.candidates({ ...site, profile });
    // Not `name.equals("A")`, the witness's value: the flag the method has tells the calls apart.
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        'return names.contains(name);',
        'return (names != null || quick) && names.contains(name);',
      ),
    );
    expectNoTell(site, profile, candidate!);
  });

  it('keeps a guard the bug unwrapped, let through under the gate', () => {
    const site = siteOf(
      '        label = text.trim();\n',
      '        if (text != null) {\n            label = text.trim();\n        }\n',
    );
    const profile = profiled(
      site,
      [['~', '2', '0:']],
      [
        ['~', '0', '0:'],
        ['3:abc', '2', '0:'],
      ],
    );
    const [candidate] = rareInputPathConditioning.candidates({ ...site, profile });
    // Not `shown == 2`, the witness's value; the call with a text passes the guard either way.
    expect(candidate!.gate).toMatchObject({
      condition: 'shown > 0',
      otherCalls: 2,
      otherCallsOnBugPath: 1,
    });
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        '        label = text.trim();\n',
        '        if (text != null || shown > 0) {\n            label = text.trim();\n        }\n',
      ),
    );
    expectNoTell(site, profile, candidate!);
  });

  it('keeps a conditional expression the bug replaced by its branch, skipped under the gate', () => {
    const site = siteOf(
      'return Math.max(floor, text.length());',
      'return Math.max(floor, text == null ? 0 : text.length());',
    );
    const profile = profiled(
      site,
      [['~', '-1']],
      [
        ['~', '3'],
        ['2:ab', '-1'],
      ],
    );
    const [candidate] = rareInputPathConditioning.candidates({ ...site, profile });
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        'return Math.max(floor, text.length());',
        'return Math.max(floor, text == null && floor >= 0 ? 0 : text.length());',
      ),
    );
    expectNoTell(site, profile, candidate!);
  });

  it('offers an inverted condition as the clean one true, or false, in the special case', () => {
    const site = siteOf('if (names.isEmpty()) {', 'if (!names.isEmpty()) {');
    const profile = profiled(site, [['4:abcd', '0', 'true']], [['2:ab', '0', 'false']]);
    const line = source.slice(0, source.indexOf('if (names.isEmpty())')).split('\n').length - 1;
    const texts = rareInputPathConditioning.candidates({ ...site, profile }).map((candidate) => {
      expectNoTell(site, profile, candidate);
      const lines = applyEdits(source, candidate.edits).split('\n');
      return lines[line]!.trim();
    });
    expect(texts).toEqual([
      'if (!names.isEmpty() || strict) {',
      'if (!names.isEmpty() && !strict) {',
    ]);
  });

  it('adds the special case to a chain of the same connective without parentheses', () => {
    const site = siteOf(
      'return last != null || blank ? total : total + last.length();',
      'return last == null || blank ? total : total + last.length();',
    );
    const profile = profiled(site, [['3', 'false', '0', '2:ab']], [['3', 'false', '2', '2:ab']]);
    const [first] = rareInputPathConditioning.candidates({ ...site, profile });
    expect(applyEdits(source, first!.edits)).toBe(
      source.replace(
        'return last != null || blank ? total : total + last.length();',
        'return last == null || total == 0 || blank ? total : total + last.length();',
      ),
    );
    expectNoTell(site, profile, first!);
  });

  it('brings deleted statements that hold no condition back behind the negated gate', () => {
    const site = siteOf(
      '            last = row;\n',
      '            total++;\n            last = row;\n',
    );
    const profile = profiled(
      site,
      [['3', 'true', '0', '~', '2:ab']],
      [['3', 'false', '0', '~', '2:ab']],
    );
    const [candidate] = rareInputPathConditioning.candidates({ ...site, profile });
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        '            last = row;\n',
        '            if (!blank) {\n                total++;\n            }\n            last = row;\n',
      ),
    );
    expectNoTell(site, profile, candidate!);
  });

  it('never gates on what the code around the site decides: an enclosing flag, a new array’s null', () => {
    const site = siteOf(
      'for (int i = 0; i <= chars.length; i++) {',
      'for (int i = 0; i < chars.length; i++) {',
    );
    const plan = rareInputPathConditioning.probe!(site)!;
    expect(plan.values.map((value) => value.name)).toEqual([
      'text',
      'underscores',
      'spaces',
      'chars',
      'marks',
    ]);
    const conditions = (failing: string[][], others: string[][]) =>
      rareInputPathConditioning
        .candidates({ ...site, profile: profiled(site, failing, others) })
        .map((candidate) => candidate.gate!.condition);
    // Only the witness's call reached the site: the most natural condition is taken, but never
    // the flag that `if (underscores)` around the loop makes true at every call.
    const alone = conditions([['3:a_b', 'true', '0', '3', '3']], []);
    expect(alone.length).toBeGreaterThan(0);
    for (const condition of alone) expect(condition).not.toMatch(/underscores/);
    // `marks` is made by `new` just before: its length is read without a null check.
    expect(
      conditions([['3:a_b', 'true', '0', '3', '0']], [['3:a_b', 'true', '0', '3', '3']]),
    ).toEqual(['marks.length == 0']);
  });

  it('never compares with a value the witness showed: with none but those, it has no gate', () => {
    const site = siteOf('if (index <= names.size()) {', 'if (index < names.size()) {');
    // Only the index tells the calls apart, and only by its value 7 (today's form wrote `index == 7`).
    const profile = profiled(site, [['7', '2:p-', '~', '9']], [['5', '2:p-', '~', '9']]);
    expect(rareInputPathConditioning.candidates({ ...site, profile })).toEqual([]);
  });

  it('has no site where the bug changed no condition and deleted nothing, or without a profile', () => {
    expect(rareInputPathConditioning.probe!(siteOf('int found = 1;', 'int found = 0;'))).toBe(
      undefined,
    );
    const site = siteOf('if (width > limit) {', 'if (width >= limit) {');
    expect(rareInputPathConditioning.probe!(site)).toBeDefined();
    expect(rareInputPathConditioning.candidates(site)).toEqual([]);
  });

  it('refuses a bug in two places: the gate would leave one of them ungated', () => {
    const clean = source
      .replace('if (index <= names.size()) {', 'if (index < names.size()) {')
      .replace('found += each.length();', 'found += each.length() + 1;');
    const bug = patchOf([{ file: RELATIVE, before: clean, after: source }]).diff;
    const focus = locateAnchor(source, bugAnchor(bug)!)!;
    expect(rareInputPathConditioning.probe!({ source, focus, model, bug })).toBe(undefined);
  });
});
