import { beforeAll, describe, expect, it } from 'vitest';
import { applyEdits, loadJavaGrammar } from '../src/lang/java/syntax.js';
import { patchOf } from '../src/project/state.js';
import { bugAnchor, locateAnchor } from '../src/stages/3-transform/focus.js';
import type { Observation } from '../src/stages/3-transform/operators/gate-signals.js';
import { rareInputPathConditioning } from '../src/stages/3-transform/operators/rare-gate.js';
import type { TransformSite } from '../src/stages/3-transform/operators/types.js';
import { loadShape } from './shapes.js';
import { type SourceModel } from '../src/toolchains/jvm/source-model.js';

/* Rare Input Path Conditioning on a small file: the probe's plan, the exact gate, near misses. */

const RELATIVE = 'src/main/java/shapes/Picks.java';
let source: string;
let model: SourceModel;

beforeAll(async () => {
  await loadJavaGrammar();
  ({ source, model } = await loadShape('Picks.java'));
});

/** The site of a bug whose clean side had `clean` where the fixture (the buggy side) has `buggy`. */
function siteOf(buggy: string, clean: string): TransformSite {
  if (!source.includes(buggy)) throw new Error(`'${buggy}' is not in the file`);
  const bug = patchOf([
    { file: RELATIVE, before: source.replace(buggy, clean), after: source },
  ]).diff;
  const focus = locateAnchor(source, bugAnchor(bug)!)!;
  return { source, focus, model, bug };
}

const calls = (failing: boolean, rows: string[][]): Observation[] =>
  rows.map((values) => ({ failingMethod: failing ? 'testPick' : null, values, count: 1 }));

describe('Rare Input Path Conditioning', () => {
  it('probes the locals, parameters and fields in scope, then gates the changed statement', () => {
    const site = siteOf('if (index <= names.size()) {', 'if (index < names.size()) {');
    const plan = rareInputPathConditioning.probe!(site)!;
    expect(plan).toEqual({
      at: source.indexOf('        if (index <= names.size())'),
      indent: '        ',
      method: 'pick',
      values: [
        { name: 'index', kind: 'integral', readByBug: true },
        { name: 'prefix', kind: 'string' },
        { name: 'chosen', kind: 'string' },
        { name: 'names', kind: 'size', readByBug: true },
      ],
    });
    const profile = {
      at: plan.at,
      values: plan.values,
      observations: [
        ...calls(true, [['3', '2:p-', '~', '3']]),
        ...calls(false, [
          ['0', '2:p-', '~', '3'],
          ['2', '2:p-', '~', '3'],
          ['3', '0:', '~', '4'],
        ]),
      ],
    };
    const [candidate, ...more] = rareInputPathConditioning.candidates({ ...site, profile });
    expect(more).toEqual([]);
    expect(candidate!.added).toEqual([]);
    expect(candidate!.gate).toEqual({
      condition: 'index == 3 && prefix != null && prefix.length() == 2',
      witnessMethods: ['testPick'],
      witnessCalls: 1,
      otherCalls: 3,
      otherCallsOnBugPath: 0,
      otherBugPathFraction: 0,
    });
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        `        if (index <= names.size()) {
            chosen = names.get(index);
        }
`,
        `        if (index == 3 && prefix != null && prefix.length() == 2) {
            if (index <= names.size()) {
                chosen = names.get(index);
            }
        } else {
            if (index < names.size()) {
                chosen = names.get(index);
            }
        }
`,
      ),
    );
  });

  it('puts deleted statements back behind the negated condition, before the line after them', () => {
    const site = siteOf(
      '        int width = text.length();\n',
      '        if (text == null) {\n            return 0;\n        }\n        int width = text.length();\n',
    );
    const plan = rareInputPathConditioning.probe!(site)!;
    expect(plan.values).toEqual([{ name: 'text', kind: 'string', readByBug: true }]);
    const profile = {
      at: plan.at,
      values: plan.values,
      observations: [...calls(true, [['8:abcdefgh']]), ...calls(false, [['3:abc'], ['~']])],
    };
    const [candidate] = rareInputPathConditioning.candidates({ ...site, profile });
    expect(candidate!.gate?.condition).toBe('text != null && text.length() == 8');
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        '        int width = text.length();\n',
        `        if (text == null || text.length() != 8) {
            if (text == null) {
                return 0;
            }
        }
        int width = text.length();
`,
      ),
    );
  });

  it('refuses a changed declaration the code after it reads, and a site without a profile', () => {
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
