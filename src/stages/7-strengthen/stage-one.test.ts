import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../../lang/java/syntax.js';
import { dropRejected } from './stage-one.js';

/*
 * The API rule's mechanics: a generated test that does not compile against the base tree (it
 * calls what only gold added) is dropped by the lines javac names, and only that test.
 */

const FILE = 'src/test/java/org/example/ParserStrengthenedTest.java';
const SOURCE = `package org.example;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class ParserStrengthenedTest {
    private final Parser parser = new Parser();

    @Test
    public void parsesEmpty_1() {
        assertEquals(0, parser.parse("").size());
    }

    @Test
    public void parsesStrict_1() {
        assertEquals(1, parser.parseStrict("a").size());
    }
}
`;

beforeAll(async () => {
  await loadJavaGrammar();
});

describe('dropRejected (the API rule)', () => {
  const classes = [{ file: FILE, source: SOURCE, methods: ['parsesEmpty_1', 'parsesStrict_1'] }];

  it('drops the test that calls a method the base tree lacks, and keeps the others', () => {
    const { classes: kept, losses } = dropRejected(
      classes,
      [
        {
          file: `/tmp/replay-1/project/${FILE}`,
          line: 17,
          column: 29,
          message: 'cannot find symbol',
        },
      ],
      'api-rule',
    );
    expect(kept.map((entry) => entry.methods)).toEqual([['parsesEmpty_1']]);
    expect(kept[0]!.source).not.toContain('parseStrict');
    expect(kept[0]!.source).toContain('private final Parser parser');
    expect(losses).toEqual([
      { gate: 'api-rule', tests: [`${FILE}#parsesStrict_1`], detail: 'cannot find symbol' },
    ]);
  });

  it('drops nothing when the errors are elsewhere (the build failed for another reason)', () => {
    const elsewhere = [
      { file: '/tmp/p/src/test/java/org/example/Other.java', line: 17, column: 1, message: 'x' },
      { file: `/tmp/p/${FILE}`, line: 8, column: 1, message: 'field' },
    ];
    const result = dropRejected(classes, elsewhere, 'api-rule');
    expect(result.classes).toBe(classes);
    expect(result.losses).toEqual([]);
  });

  it('drops a class whose every test is rejected', () => {
    const result = dropRejected(
      classes,
      [12, 17].map((line) => ({ file: `/x/${FILE}`, line, column: 1, message: 'bad' })),
      'final-compile',
    );
    expect(result.classes).toEqual([]);
    expect(result.losses.flatMap((loss) => loss.tests)).toHaveLength(2);
  });
});
