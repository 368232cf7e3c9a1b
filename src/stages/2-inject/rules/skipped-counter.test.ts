import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../../../lang/java/syntax.js';
import { checkChange, mutationsAt } from './test-support.js';
import { skippedCounterInjector as injector } from './skipped-counter.js';

const SOURCE = `package p;

import java.util.ArrayList;
import java.util.List;

public class Tally {
    private int processed;
    private final List<String> accepted = new ArrayList<>();

    public long tally(List<String> lines, String prefix) {
        int matched = 0;
        long total = 0;
        for (String line : lines) {
            if (line.startsWith(prefix)) {
                accepted.add(line);
                matched++;
            } else {
                total += line.length();
                System.out.println(line);
            }
            this.processed++;
            log(line);
        }
        return total * 1000 + matched;
    }

    public int skipDigits(String text, int seen) {
        int i = 0;
        while (i < text.length()) {
            if (!Character.isDigit(text.charAt(i))) {
                break;
            }
            i++;
            seen++;
        }
        return i + seen;
    }

    public void walk(List<String> tokens) {
        int depth = 0;
        int i = 0;
        for (String token : tokens) {
            if (token.equals("(")) {
                accepted.add(token);
                depth++;
            } else if (token.equals(")")) {
                accepted.add(token);
                depth--;
            } else {
                accepted.add(token);
                i++;
            }
            if (depth < 0 || i > 3) {
                throw new IllegalStateException(token);
            }
        }
    }

    public int getProcessed() {
        return processed;
    }

    private void log(String line) {
    }
}
`;

beforeAll(loadJavaGrammar);

describe('Skipped Aggregation Counter', () => {
  it('deletes one counter or total update from a branch that still does its work', () => {
    const mutations = mutationsAt(injector, SOURCE, 'tally', 10);
    expect(mutations.map((m) => m.description)).toEqual([
      'delete `matched++;` (line 16) from an if branch',
      'delete `total += line.length();` (line 18) from an else branch',
      'delete `this.processed++;` (line 21) from a loop body',
    ]);
    expect(mutations[0]!.source).toBe(SOURCE.replace('                matched++;\n', ''));
    expect(mutations[1]!.source).toBe(
      SOURCE.replace('                total += line.length();\n', ''),
    );
    expect(mutations[2]!.source).toBe(SOURCE.replace('            this.processed++;\n', ''));
    expect(mutations.every((m) => m.parses && m.check.kind === 'Matches')).toBe(true);
    expect(mutations[0]!.methodKey).toBe('Tally.tally(List,String)');
  });

  it('leaves loop counters and positions passed in alone; a method without counters has no sites', () => {
    expect(mutationsAt(injector, SOURCE, 'skipDigits', 28)).toEqual([]);
    expect(mutationsAt(injector, SOURCE, 'getProcessed', 59)).toEqual([]);
  });

  it.each([
    ['depth--;', 'a level counted down'],
    ['depth++;', 'a level that also goes down'],
    ['i++;', 'a value only tested in a condition'],
  ])('refuses to take %s for an aggregation counter: %s', (statement) => {
    const offered = mutationsAt(injector, SOURCE, 'walk', 39).map((m) => m.description);
    expect(offered).toEqual([]);
    const deleted = SOURCE.replace(`                ${statement}\n`, '');
    expect(deleted).not.toBe(SOURCE);
    expect(checkChange(injector, SOURCE, deleted).kind).toBe('Mismatch');
  });

  it('accepts a hand-written deletion, whatever the layout around it', () => {
    const after = SOURCE.replace('                matched++;\n', '').replace(
      'accepted.add(line);',
      'accepted.add(line); ',
    );
    expect(checkChange(injector, SOURCE, after)).toMatchObject({ kind: 'Matches' });
  });

  it('rejects near misses: other statements, emptied branches, loop control, comments', () => {
    const onlyUpdate = SOURCE.replace(
      '                accepted.add(line);\n                matched++;',
      '                matched++;',
    );
    for (const [before, after] of [
      // the item is no longer processed: not the counter
      [SOURCE, SOURCE.replace('                accepted.add(line);\n', '')],
      // the branch is left empty
      [onlyUpdate, onlyUpdate.replace('                matched++;\n', '')],
      // the loop's own counter: the loop never ends
      [SOURCE, SOURCE.replace('            i++;\n', '')],
      // a position passed in, not a count
      [SOURCE, SOURCE.replace('            seen++;\n', '')],
      // only a comment added
      [SOURCE, SOURCE.replace('matched++;', 'matched++; // one more')],
      // the update changed instead of skipped
      [SOURCE, SOURCE.replace('matched++;', 'matched += 2;')],
    ] as const) {
      expect(before).not.toBe(after);
      expect(checkChange(injector, before, after).kind).toBe('Mismatch');
    }
  });

  it('rejects a deleted update of a counter nobody reads', () => {
    const before = SOURCE.replace('return total * 1000 + matched;', 'return total;');
    const after = before.replace('                matched++;\n', '');
    const verdict = checkChange(injector, before, after);
    expect(verdict).toMatchObject({ kind: 'Mismatch' });
    expect(verdict.kind === 'Mismatch' && verdict.reason).toMatch(/not used anywhere else/);
  });
});
