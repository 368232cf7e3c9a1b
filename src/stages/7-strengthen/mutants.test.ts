import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Text } from '../../core/fs.js';
import { loadJavaGrammar } from '../../lang/java/syntax.js';
import { ProjectTypes } from '../../lang/java/type-index.js';
import {
  goldLinesChangedBy,
  mutantCandidates,
  type GoldFile,
  type MutantCandidate,
  type RuleFamily,
} from './mutants.js';

const BASE = `package org.example;

import java.util.List;

public class Inventory {
    private final List<String> items;
    private int lookups;
    private String last;

    public Inventory(List<String> items) {
        this.items = items;
    }

    public String itemAt(int index) {
        if (index < 0 || items.isEmpty()) {
            return null;
        }
        if (index < items.size() - 1) {
            return items.get(index);
        }
        return null;
    }

    public int size() {
        return items.size();
    }

    public int lengthOf(String name) {
        lookups++;
        return name.trim().length();
    }
}
`;

/** BASE with a statement added (line 15), a bound fixed (19) and a null check added (30-32). */
const GOLD = `package org.example;

import java.util.List;

public class Inventory {
    private final List<String> items;
    private int lookups;
    private String last;

    public Inventory(List<String> items) {
        this.items = items;
    }

    public String itemAt(int index) {
        lookups++;
        if (index < 0 || items.isEmpty()) {
            return null;
        }
        if (index < items.size()) {
            return items.get(index);
        }
        return null;
    }

    public int size() {
        return items.size();
    }

    public int lengthOf(String name) {
        if (name == null || name.isEmpty()) {
            return 0;
        }
        lookups++;
        String trimmed = name.trim();
        last = trimmed;
        return trimmed.length();
    }
}
`;

const FILE = 'src/main/java/org/example/Inventory.java';
const CHANGED = [15, 19, 30, 31, 32, 34, 35, 36];

/** A file gold adds, tab-indented, with a method of each kind of return type. */
const FLAGS = `package org.example;

public class Flags {
\tprivate boolean on;
\tprivate long total;

\tpublic Flags(boolean on) {
\t\tthis.on = on;
\t}

\tpublic boolean isOn() {
\t\treturn on;
\t}

\tpublic long total() {
\t\treturn total;
\t}

\tpublic char initial(String name) {
\t\treturn name.charAt(0);
\t}

\tpublic void reset() {
\t\ttotal = 0;
\t\ton = false;
\t}

\tpublic int[] counts() { return new int[] {1}; }
}
`;

const FLAGS_FILE = 'src/main/java/org/example/Flags.java';

beforeAll(loadJavaGrammar);

function inventory(overrides: Partial<GoldFile> = {}): GoldFile {
  return { file: FILE, base: BASE, gold: GOLD, changed: CHANGED, relevant: [], ...overrides };
}

function flags(): GoldFile {
  return {
    file: FLAGS_FILE,
    base: null,
    gold: FLAGS,
    changed: [8, 12, 16, 20, 24, 25, 28],
    relevant: [],
  };
}

function candidatesOf(
  files: GoldFile[],
  options: { seed?: number; maxPerFamily?: number; families?: RuleFamily[] } = {},
): MutantCandidate[] {
  return mutantCandidates(files, {
    types: ProjectTypes.fromSources(files.map((file) => file.gold)),
    seed: options.seed ?? 1,
    maxPerFamily: options.maxPerFamily ?? 100,
    ...(options.families ? { families: options.families } : {}),
  });
}

/** `text` with 1-based lines replaced (a string) or removed (null). */
function withLines(text: string, changes: Record<number, string | null>): string {
  return text
    .split('\n')
    .flatMap((line, index) => {
      const change = changes[index + 1];
      if (change === undefined) return [line];
      return change === null ? [] : [change];
    })
    .join('\n');
}

function ofFamily(candidates: MutantCandidate[], family: MutantCandidate['family']) {
  return candidates.filter((candidate) => candidate.family === family);
}

/** Operator and gold lines, the shape of a family's output. */
function shapes(candidates: MutantCandidate[]): string[] {
  return candidates.map((candidate) => `${candidate.operator} ${candidate.goldLines.join(',')}`);
}

describe('mutantCandidates: partial-gold', () => {
  let partial: MutantCandidate[];
  beforeAll(() => {
    partial = ofFamily(candidatesOf([inventory()]), 'partial-gold');
  });

  it('drops each hunk, reverts each change of a hunk with several, drops a lone added statement', () => {
    expect(shapes(partial)).toEqual([
      'drop-hunk 15,19',
      'no-fix 15,19,30,31,32,34,35,36',
      'revert-change 15',
      'revert-change 19',
      'drop-hunk 30,31,32,34,35,36',
      'revert-change 30,31,32',
      'revert-change 34,35,36',
      'drop-statement 35',
    ]);
  });

  it("puts base's text back for a whole hunk", () => {
    const dropped = partial.find((candidate) => candidate.detail.includes('lines 15-19'));
    expect(dropped?.operator).toBe('drop-hunk');
    expect(dropped?.source).toBe(
      withLines(GOLD, { 15: null, 19: '        if (index < items.size() - 1) {' }),
    );
    const secondHunk = partial.find((candidate) => candidate.detail.includes('lines 30-36'));
    expect(secondHunk?.source).toBe(
      withLines(GOLD, {
        30: null,
        31: null,
        32: null,
        34: '        return name.trim().length();',
        35: null,
        36: null,
      }),
    );
  });

  it('reverts one change group alone', () => {
    const reverted = partial.find(
      (candidate) => candidate.operator === 'revert-change' && candidate.goldLines[0] === 19,
    );
    expect(reverted?.source).toBe(
      withLines(GOLD, { 19: '        if (index < items.size() - 1) {' }),
    );
  });

  it('drops neither a declaration used later, nor a return, nor a line added alone', () => {
    const drops = partial.filter((candidate) => candidate.operator === 'drop-statement');
    expect(drops.map((candidate) => candidate.detail)).toEqual(['line 35: drops last = trimmed;']);
    expect(drops[0]!.source).toBe(withLines(GOLD, { 35: null }));
  });

  it('names a partial fix that is the bug again no-fix when gold changes only this file, and always keeps it', () => {
    const boundOnly = withLines(BASE, { 18: '        if (index < items.size()) {' });
    const alone = candidatesOf([inventory({ gold: boundOnly, changed: [18] })]);
    expect(shapes(ofFamily(alone, 'partial-gold'))).toEqual(['no-fix 18']);
    expect(alone.filter((candidate) => candidate.source === BASE)).toHaveLength(1);
    const none = mutantCandidates([inventory({ gold: boundOnly, changed: [18] })], {
      types: ProjectTypes.fromSources([]),
      seed: 1,
      maxPerFamily: 0,
    });
    expect(none.map((candidate) => candidate.operator)).toEqual(['no-fix']);

    // With another file fixed too, base's text of this one is an incomplete fix.
    const withOther = candidatesOf([inventory({ gold: boundOnly, changed: [18] }), flags()]);
    expect(shapes(ofFamily(withOther, 'partial-gold'))).toEqual(['drop-hunk 18']);
    expect(ofFamily(withOther, 'partial-gold')[0]!.source).toBe(BASE);
  });

  it('marks where a line gold removes goes back: the line it precedes, or ends a block after', () => {
    const base = withLines(GOLD, {
      11: '        this.items = items;\n        lookups = 0;',
      26: '        lookups++;\n        return items.size();',
    });
    const restored = ofFamily(candidatesOf([inventory({ base, changed: [] })]), 'partial-gold');
    expect(restored.map((candidate) => [candidate.operator, candidate.goldLines])).toEqual([
      ['drop-hunk', [11]],
      ['no-fix', [11, 26]],
      ['drop-hunk', [26]],
    ]);
    expect(restored[1]!.source).toBe(base);
    expect(restored[2]!.source).toBe(
      withLines(GOLD, { 26: '        lookups++;\n        return items.size();' }),
    );
  });

  it('makes none of a file gold adds', () => {
    const added = candidatesOf([inventory({ base: null })]);
    expect(ofFamily(added, 'partial-gold')).toEqual([]);
    expect(ofFamily(added, 'operator').length).toBeGreaterThan(0);
  });
});

describe('mutantCandidates: operator', () => {
  it("mutates only gold's changed and relevant lines", () => {
    const changedOnly = ofFamily(candidatesOf([inventory()]), 'operator');
    expect(new Set(changedOnly.map((candidate) => candidate.goldLines[0]))).toEqual(
      new Set([15, 19, 30, 31, 36]),
    );
    const withRelevant = ofFamily(candidatesOf([inventory({ relevant: [16, 26] })]), 'operator');
    expect(withRelevant.map((candidate) => candidate.detail)).toContain(
      'line 26: return items.size(); → return null;',
    );
    expect(withRelevant.filter((candidate) => candidate.goldLines[0] === 16).length).toBe(3);
  });

  it("replaces one line of gold's text", () => {
    const boundary = ofFamily(candidatesOf([inventory()]), 'operator').find(
      (candidate) => candidate.operator === 'conditional-boundary',
    );
    expect(boundary?.goldLines).toEqual([19]);
    expect(boundary?.detail).toBe(
      'line 19: if (index < items.size()) { → if (index <= items.size()) {',
    );
    expect(boundary?.source).toBe(withLines(GOLD, { 19: '        if (index <= items.size()) {' }));
  });
});

describe('mutantCandidates: bug-type', () => {
  it("applies the bug types in gold's changed methods where they touch a changed or relevant line", () => {
    const bugTypes = ofFamily(candidatesOf([inventory()]), 'bug-type');
    expect(shapes(bugTypes)).toEqual([
      'logic_predicate_inversion_in_guard 30',
      'npe_intra_method_guard_removed 30',
    ]);
    const dropped = bugTypes.find((candidate) => candidate.operator.startsWith('npe'));
    expect(dropped?.source).toBe(withLines(GOLD, { 30: '        if (name.isEmpty()) {' }));

    const withRelevant = ofFamily(candidatesOf([inventory({ relevant: [16] })]), 'bug-type');
    expect(withRelevant.map((candidate) => candidate.detail)).toContain(
      'if (index < 0 || items.isEmpty()) → if (index < 0 || !items.isEmpty())',
    );
  });

  it('keeps a text two families make once, in the earlier family', () => {
    const candidates = candidatesOf([inventory()]);
    const bound = withLines(GOLD, { 19: '        if (index <= items.size()) {' });
    const same = candidates.filter((candidate) => candidate.source === bound);
    expect(same.map((candidate) => candidate.family)).toEqual(['operator']);
    expect(new Set(candidates.map((candidate) => candidate.source)).size).toBe(candidates.length);
  });
});

describe('mutantCandidates: extreme', () => {
  it('reduces each changed method to returning a default, in its own indentation', () => {
    const extreme = ofFamily(candidatesOf([inventory()]), 'extreme');
    expect(extreme.map((candidate) => candidate.detail)).toEqual([
      'Inventory.itemAt(int): body replaced by return null;',
      'Inventory.lengthOf(String): body replaced by return 0;',
    ]);
    const lengthOf = extreme[1]!;
    expect(lengthOf.goldLines).toEqual([30, 31, 32, 33, 34, 35, 36]);
    expect(lengthOf.source).toBe(
      withLines(GOLD, {
        30: '        return 0;',
        31: null,
        32: null,
        33: null,
        34: null,
        35: null,
        36: null,
      }),
    );
  });

  it("writes each return type's default, empties a void body and leaves constructors alone", () => {
    const extreme = ofFamily(candidatesOf([flags()]), 'extreme');
    expect(extreme.map((candidate) => [candidate.goldLines, candidate.source])).toEqual([
      [[12], withLines(FLAGS, { 12: '\t\treturn false;' })],
      [[16], withLines(FLAGS, { 16: '\t\treturn 0L;' })],
      [[20], withLines(FLAGS, { 20: "\t\treturn '\\0';" })],
      [[24, 25], withLines(FLAGS, { 24: null, 25: null })],
      [[28], withLines(FLAGS, { 28: '\tpublic int[] counts() { return null; }' })],
    ]);
  });
});

describe('mutantCandidates', () => {
  const WIDE = inventory({ relevant: [16, 20, 22, 26] });

  it('draws at most maxPerFamily per family, the same for the same seed', () => {
    const drawn = candidatesOf([WIDE], { seed: 3, maxPerFamily: 2 });
    for (const family of ['partial-gold', 'operator', 'bug-type', 'extreme'] as const) {
      const drawable = ofFamily(drawn, family).filter(
        (candidate) => candidate.operator !== 'no-fix',
      );
      expect(drawable.length).toBe(2);
    }
    // The bug as it was is always tried, beside the draw.
    expect(drawn.filter((candidate) => candidate.operator === 'no-fix')).toHaveLength(1);
    expect(candidatesOf([WIDE], { seed: 3, maxPerFamily: 2 })).toEqual(drawn);
  });

  it("tries only the families asked for, each family's draw as it is with all of them", () => {
    const all = candidatesOf([WIDE], { seed: 3, maxPerFamily: 2 });
    const some = candidatesOf([WIDE], {
      seed: 3,
      maxPerFamily: 2,
      families: ['operator', 'extreme'],
    });
    expect(some.length).toBeGreaterThan(0);
    expect(some).toEqual(
      all.filter((candidate) => candidate.family === 'operator' || candidate.family === 'extreme'),
    );
  });

  it('draws differently for other seeds', () => {
    const draws = new Set(
      [1, 2, 3, 4, 5, 6, 7, 8].map((seed) =>
        candidatesOf([WIDE], { seed, maxPerFamily: 2 })
          .map((candidate) => candidate.id)
          .join(','),
      ),
    );
    expect(draws.size).toBeGreaterThan(1);
  });

  it('orders by family, file, first gold line and operator', () => {
    const candidates = candidatesOf([flags(), WIDE]);
    const families = ['partial-gold', 'operator', 'bug-type', 'extreme'];
    const keys = candidates.map(
      (candidate) =>
        `${families.indexOf(candidate.family)} ${candidate.file} ${String(candidate.goldLines[0]).padStart(3, '0')} ${candidate.operator}`,
    );
    expect(keys).toEqual([...keys].sort());
    expect(new Set(candidates.map((candidate) => candidate.file)).size).toBe(2);
  });

  it('names each candidate by its file and text', () => {
    const candidates = candidatesOf([WIDE, flags()]);
    for (const candidate of candidates) {
      expect(candidate.id).toBe(sha256Text(`${candidate.file}\0${candidate.source}`).slice(0, 12));
      expect(candidate.goldLines.length).toBeGreaterThan(0);
      expect([GOLD, BASE, FLAGS]).not.toContain(candidate.source);
    }
    expect(new Set(candidates.map((candidate) => candidate.id)).size).toBe(candidates.length);
  });

  it("keeps a CRLF file's line breaks", () => {
    const crlf = (text: string) => text.replace(/\n/g, '\r\n');
    const candidates = candidatesOf([
      inventory({ base: crlf(BASE), gold: crlf(GOLD), relevant: [16, 26] }),
    ]);
    for (const candidate of candidates) expect(candidate.source).not.toMatch(/[^\r]\n/);
    const asLf = candidates.map(({ id: _id, ...candidate }) => ({
      ...candidate,
      source: candidate.source.replace(/\r\n/g, '\n'),
    }));
    const lf = candidatesOf([inventory({ relevant: [16, 26] })]).map(
      ({ id: _id, ...candidate }) => candidate,
    );
    expect(asLf).toEqual(lf);
  });
});

describe('goldLinesChangedBy', () => {
  it('names the gold lines an edit changes, removes, or stands before', () => {
    const gold = 'a\nb\nc\nd\n';
    expect(goldLinesChangedBy(gold, 'a\nB\nc\nd\n')).toEqual([2]);
    expect(goldLinesChangedBy(gold, 'a\nd\n')).toEqual([2, 3]);
    expect(goldLinesChangedBy(gold, 'a\nb\nx\nc\nd\n')).toEqual([3]);
    expect(goldLinesChangedBy(gold, gold)).toEqual([]);
  });
});
