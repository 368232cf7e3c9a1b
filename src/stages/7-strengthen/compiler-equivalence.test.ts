import { describe, expect, it } from 'vitest';
import { classesOfSource, normalisedListing } from './compiler-equivalence.js';

describe('compiler equivalence', () => {
  it("takes a source file's class and its nested classes, not a longer name's", () => {
    const entries = [
      'META-INF/MANIFEST.MF',
      'org/x/Parser.class',
      'org/x/Parser$State.class',
      'org/x/Parser$1.class',
      'org/x/ParserException.class',
      'org/x/Parser.properties',
    ];
    expect(classesOfSource(entries, 'org/x/Parser.java')).toEqual([
      'org.x.Parser',
      'org.x.Parser$1',
      'org.x.Parser$State',
    ]);
  });

  it('ignores constant-pool numbering and spacing, not the instructions', () => {
    const gold = [
      'Compiled from "Parser.java"',
      '  public int size();',
      '    Code:',
      '       0: aload_0',
      '       1: getfield      #7                  // Field count:I',
      '       4: ireturn',
    ].join('\n');
    const renumbered = gold.replace('#7   ', '#12  ');
    const changed = gold.replace('ireturn', 'iconst_0');
    expect(normalisedListing(renumbered)).toBe(normalisedListing(gold));
    expect(normalisedListing(changed)).not.toBe(normalisedListing(gold));
  });
});
