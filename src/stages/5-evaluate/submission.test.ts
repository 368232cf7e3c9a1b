import { describe, expect, it } from 'vitest';
import { projectLayout } from '../../toolchains/layout.js';
import { readSubmission } from './submission.js';

const layout = projectLayout({});
const added = (file: string, after = 'x') => ({ file, before: '', after });

describe('readSubmission', () => {
  it('passes on the test sources an agent added or edited, and ignores deleted ones', () => {
    expect(
      readSubmission(
        [
          added('src/test/java/org/a/NewTest.java', 'class NewTest {}'),
          { file: 'src/test/java/org/a/OldTest.java', before: 'a', after: 'b' },
          { file: 'src/test/java/org/a/GoneTest.java', before: 'a', after: '' },
        ],
        layout,
      ),
    ).toEqual([
      { kind: 'Test', file: 'src/test/java/org/a/NewTest.java', content: 'class NewTest {}' },
      { kind: 'Test', file: 'src/test/java/org/a/OldTest.java', content: 'b' },
      {
        kind: 'Ignored',
        file: 'src/test/java/org/a/GoneTest.java',
        why: 'a deleted test source stays in the verified trees',
      },
    ]);
  });

  it('takes every other change for a violation, and says what it would have changed', () => {
    const whats = readSubmission(
      [
        { file: 'pom.xml', before: '<project/>', after: '<project><build/></project>' },
        added('.mvn/jvm.config'),
        added(
          'src/test/resources/META-INF/services/org.junit.platform.launcher.TestExecutionListener',
        ),
        added('src/test/resources/junit-platform.properties'),
        { file: 'src/main/java/org/a/A.java', before: 'a', after: 'b' },
        added('notes.txt'),
        { ...added('src/test/java/org/a/Peek.java', '/clean/A.java'), link: true as const },
      ],
      layout,
    ).map((entry) => (entry.kind === 'Violation' ? `${entry.edit} ${entry.what}` : entry.kind));
    expect(whats).toEqual([
      'edited build file',
      'added build configuration',
      'added test runtime configuration',
      'added test runtime configuration',
      'edited production code',
      'added other file',
      'added link',
    ]);
  });

  it("reads a module's roots from its layout", () => {
    const module = projectLayout({ module: 'core' });
    const [test, production] = readSubmission(
      [added('core/src/test/java/ATest.java'), added('core/src/main/java/A.java')],
      module,
    );
    expect(test!.kind).toBe('Test');
    expect(production).toMatchObject({ kind: 'Violation', what: 'production code' });
  });
});
