import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseTestMethod, failingMethodsOf, verdictFromReports } from '../core/test-reports.js';
import type { FileChange } from '../core/file-change.js';
import { loadJavaGrammar } from '../lang/java/syntax.js';
import { projectLayout } from '../toolchains/layout.js';
import { parseSurefireXml } from '../toolchains/maven/surefire.js';
import { mavenEnding } from '../runners/test-support.js';
import { checkReached, checkWithMaven } from './runs.js';
import type { StructuralCheck } from '../lang/java/changed-members.js';
import { checkDiff, checkSignature, checkStructure } from './static.js';
import { CheckLog, passed } from './types.js';

const FILE = 'src/main/java/p/Box.java';
const BEFORE = `package p;

public class Box {
    private int size;

    public boolean fits(int other) {
        return size <= other;
    }

    int twice() {
        return size * 2;
    }
}
`;
const change = (after: string, file = FILE): FileChange => ({ file, before: BEFORE, after });
const layout = projectLayout({});

beforeAll(async () => {
  await loadJavaGrammar();
});

describe('static checks', () => {
  it('diff: production Java sources only, more than whitespace or comments, and parsing', () => {
    expect(checkDiff([], layout)).toMatchObject({ kind: 'Failed', stage: 'diff' });
    expect(checkDiff([change(BEFORE, 'src/test/java/p/BoxTest.java')], layout)).toMatchObject({
      kind: 'Failed',
      stage: 'diff',
    });
    expect(checkDiff([change(BEFORE.replace('int size;', 'int size; // px'))], layout)).toEqual({
      kind: 'Failed',
      stage: 'diff',
      reason: 'only whitespace or comments changed',
    });
    expect(
      checkDiff([change(BEFORE.replace('return size <= other;', 'return size <= other'))], layout),
    ).toEqual({ kind: 'Failed', stage: 'structure', reason: `${FILE} does not parse` });
    expect(
      checkDiff([change(BEFORE.replace('size <= other', 'size < other'))], layout),
    ).toMatchObject({ kind: 'Passed', evidence: { touched: [{ key: 'Box.fits(int)' }] } });
  });

  it('signature: a public signature may not change; a package-private one may', () => {
    expect(
      checkSignature([change(BEFORE.replace('public boolean fits', 'public boolean fitsIn'))]),
    ).toMatchObject({ kind: 'Failed', stage: 'signature' });
    expect(checkSignature([change(BEFORE.replace('int twice()', 'int doubled()'))])).toEqual(
      passed(null),
    );
  });

  it('structure: passes when one file matches, else lists every reason', () => {
    const matcher = (): StructuralCheck => ({ kind: 'Mismatch', reason: 'no comparison changed' });
    expect(checkStructure([change(BEFORE.replace('2', '3'))], matcher, 'Demo')).toEqual({
      kind: 'Failed',
      stage: 'structure',
      reason: 'not a Demo change: no comparison changed',
    });
    expect(
      checkStructure([change(BEFORE)], () => ({ kind: 'Matches', evidence: 'x' }), 'Demo'),
    ).toEqual(passed({ structure: 'x' }));
  });
});

describe('the reach check', () => {
  const touched = [
    {
      file: FILE,
      key: 'Box.fits(int)',
      binaryClass: 'p.Box',
      name: 'fits',
      cleanLine: 6,
      buggyLines: { first: 6, last: 8 },
    },
  ];
  const trace = (name: string, line: number) => ({
    log: [0],
    methods: { '0': { owner: 'p/Box', name, descriptor: '(I)Z', source: 'Box.java', line } },
  });

  it('finds the changed method in the trace, or its class at class granularity', () => {
    expect(checkReached(trace('fits', 7), touched, 'method')).toEqual(
      passed({ reachedAs: 'p.Box.fits (line 7)' }),
    );
    expect(checkReached(trace('twice', 11), touched, 'method')).toMatchObject({
      kind: 'Failed',
      stage: 'not-reached',
    });
    expect(checkReached(trace('twice', 11), touched, 'class')).toEqual(
      passed({ reachedAs: 'p.Box.twice (class reached)' }),
    );
    expect(checkReached(undefined, touched, 'method').kind).toBe('Failed');
  });
});

describe('a check log', () => {
  it('records every planned check: run ones with their outcome, the rest as Skipped', async () => {
    const log = new CheckLog(['diff', 'compiles', 'exposes', 'maven']);
    await log.run('diff', () => passed(null));
    log.skip('maven', 'Maven confirmation is off');
    await log.run('compiles', () => ({ kind: 'Failed', stage: 'compile', reason: 'no' }));
    const { checks } = log.finish('an earlier check failed');
    expect(checks.map((check) => [check.check, check.kind])).toEqual([
      ['diff', 'Passed'],
      ['compiles', 'Failed'],
      ['exposes', 'Skipped'],
      ['maven', 'Skipped'],
    ]);
    expect(checks[3]).toMatchObject({ reason: 'Maven confirmation is off' });
    await expect(log.run('reached', () => passed(null))).rejects.toThrow(/not in the plan/);
  });

  it('records a check that throws as its infra failure', async () => {
    const log = new CheckLog(['diff', 'compiles']);
    const outcome = await log.run('diff', () => {
      throw new Error('cannot read the report');
    });
    expect(outcome).toEqual({
      kind: 'Failed',
      stage: 'infra',
      reason: 'harness error: cannot read the report',
    });
    expect(log.finish().checks.map((check) => check.kind)).toEqual(['Failed', 'Skipped']);
  });
});

describe('the Maven confirmation', () => {
  const report = readFileSync(
    path.resolve(
      import.meta.dirname,
      '../../test/fixtures/surefire/quirks/vintage/TEST-quirks.Quirks4Test.xml',
    ),
    'utf8',
  );
  const verdict = verdictFromReports(parseSurefireXml(report));
  const maven = mavenEnding(verdict);
  const target = {
    projectDir: '/p',
    build: { mavenArgs: [], jvmArgs: [], surefireVersion: '3.5.2', generators: [] },
    changed: [],
  };
  // As the warm JVM records them: by method, parameterised runs folded.
  const recorded = Object.fromEntries(
    Object.entries(failingMethodsOf(verdict)).map(([name, type]) => [baseTestMethod(name), type]),
  );

  it('confirms a case whose witness fails under Maven as the fast runner recorded', async () => {
    const outcome = await checkWithMaven(maven, target, 'quirks.Quirks4Test', 1000, recorded);
    expect(recorded.arrayLengths).toBe('org.junit.internal.ArrayComparisonFailure');
    expect(outcome.kind).toBe('Passed');
  });

  it('refuses a case whose Maven failures differ from the recorded ones, as case verify would', async () => {
    const outcome = await checkWithMaven(maven, target, 'quirks.Quirks4Test', 1000, {
      ...recorded,
      arrayLengths: 'java.io.IOException',
    });
    expect(outcome).toMatchObject({
      kind: 'Failed',
      stage: 'maven',
      reason: expect.stringContaining(
        'arrayLengths fails with org.junit.internal.ArrayComparisonFailure, expected java.io.IOException',
      ),
    });
  });
});
