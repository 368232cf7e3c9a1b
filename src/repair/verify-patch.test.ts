import { createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { projectLayout } from '../toolchains/layout.js';
import { applyProductionChanges } from './verify-patch.js';

/*
 * What of a submitted patch the verifier applies: production sources only; edits to tests, the
 * build or anything else are stripped and listed, never applied.
 */

const layout = projectLayout({});
const base = new Map([['org/example/Parser.java', 'class Parser {\n  int limit = 1;\n}\n']]);

function filePatch(file: string, before: string, after: string): string {
  return createTwoFilesPatch(
    before === '' ? '/dev/null' : `a/${file}`,
    `b/${file}`,
    before,
    after,
  ).replace(/^=+\n/, '');
}

describe('applyProductionChanges', () => {
  it('applies production edits and strips edits to tests and the pom', () => {
    const diff = [
      filePatch(
        'src/main/java/org/example/Parser.java',
        base.get('org/example/Parser.java')!,
        'class Parser {\n  int limit = 2;\n}\n',
      ),
      filePatch('src/test/java/org/example/ParserTest.java', '', 'class ParserTest {}\n'),
      filePatch('pom.xml', '<project/>\n', '<project><!-- skip tests --></project>\n'),
    ].join('');
    const applied = applyProductionChanges(base, diff, layout);
    expect(applied).toEqual({
      kind: 'Applied',
      sources: new Map([['org/example/Parser.java', 'class Parser {\n  int limit = 2;\n}\n']]),
      stripped: ['pom.xml', 'src/test/java/org/example/ParserTest.java'],
    });
  });

  it('adds a new production file and leaves the base unchanged for an empty patch', () => {
    const added = applyProductionChanges(
      base,
      filePatch('src/main/java/org/example/Lexer.java', '', 'class Lexer {}\n'),
      layout,
    );
    expect(added.kind === 'Applied' && [...added.sources.keys()]).toEqual([
      'org/example/Parser.java',
      'org/example/Lexer.java',
    ]);
    expect(applyProductionChanges(base, '', layout)).toEqual({
      kind: 'Applied',
      sources: base,
      stripped: [],
    });
  });

  it('refuses a hunk that does not apply, naming the file', () => {
    const stale = filePatch(
      'src/main/java/org/example/Parser.java',
      'class Parser {\n  int limit = 7;\n}\n',
      'class Parser {\n  int limit = 8;\n}\n',
    );
    expect(applyProductionChanges(base, stale, layout)).toMatchObject({
      kind: 'DoesNotApply',
      reason: 'a hunk of src/main/java/org/example/Parser.java does not apply',
    });
  });
});
