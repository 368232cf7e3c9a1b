import { mkdir, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorkspaceFinding } from '../../agents/workspace-changes.js';
import { makeTempDir, removeTree } from '../../core/fs.js';
import { projectLayout } from '../../toolchains/layout.js';
import { readSubmission, workspaceSubmission } from './submission.js';

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
        {
          ...added('src/test/java/org/a/Peek.java', 'a link to /clean/A.java, not followed'),
          finding: { kind: 'Link' as const, target: '/clean/A.java' },
        },
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

  it('takes whatever the harness would not read for a violation of its own kind', () => {
    const unread = (file: string, finding: WorkspaceFinding, before = '') => ({
      file,
      before,
      after: 'not read',
      finding,
    });
    const whats = readSubmission(
      [
        unread('src/test/java/org/a/Pipe.java', { kind: 'SpecialFile', type: 'fifo' }),
        unread('src/test/java/org/a/ATest.java', { kind: 'TooLarge', bytes: 3e9, limit: 1 }, 'x'),
        unread('.', { kind: 'WorkspaceTooLarge', limit: 1 }),
        unread('many', { kind: 'TooManyEntries', limit: 1 }),
        unread('src/test/java/org/b', { kind: 'Unreadable', reason: 'ENOENT' }),
      ],
      layout,
    ).map((entry) => (entry.kind === 'Violation' ? `${entry.edit} ${entry.what}` : entry.kind));
    expect(whats).toEqual([
      'added special file',
      'edited too large',
      'added too large',
      'added too many entries',
      'added unreadable',
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

describe('workspaceSubmission', () => {
  it("does not walk a module's build output, so an agent's build does not count against the caps", async () => {
    const given = await makeTempDir('submission');
    const workspace = await makeTempDir('submission');
    try {
      for (const root of [given, workspace]) {
        await mkdir(path.join(root, 'core/src/test/java'), { recursive: true });
      }
      await writeFile(path.join(workspace, 'core/src/test/java/ATest.java'), 'class ATest {}');
      await mkdir(path.join(workspace, 'core/target/classes'), { recursive: true });
      for (let i = 0; i < 17; i++) {
        const file = path.join(workspace, `core/target/classes/C${i}.class`);
        await writeFile(file, '');
        await truncate(file, 1024 * 1024);
      }
      expect(
        await workspaceSubmission(given, workspace, projectLayout({ module: 'core' })),
      ).toEqual([
        { kind: 'Test', file: 'core/src/test/java/ATest.java', content: 'class ATest {}' },
      ]);
    } finally {
      await removeTree(given);
      await removeTree(workspace);
    }
  });
});
