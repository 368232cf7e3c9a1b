import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exists, makeTempDir, removeTree } from '../../core/fs.js';
import { WorkspaceTools, type WorkspaceToolsOptions } from './workspace-tools.js';

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  base = await makeTempDir('tools-test');
  root = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  await mkdir(path.join(root, 'src/main/java/p'), { recursive: true });
  await mkdir(path.join(root, 'target'), { recursive: true });
  await mkdir(outside);
  await writeFile(
    path.join(root, 'src/main/java/p/A.java'),
    'package p;\nclass A {\n  int size() { return 0; }\n}\n',
  );
  await writeFile(path.join(root, 'target/A.class'), 'size()');
  await writeFile(path.join(outside, 'secret.txt'), 'secret');
});

afterEach(async () => {
  await removeTree(base);
});

function open(overrides: Partial<WorkspaceToolsOptions> = {}): Promise<WorkspaceTools> {
  return WorkspaceTools.open(root, {
    replayCommand: 'grep -q "return 0" src/main/java/p/A.java',
    replayBudget: 2,
    deadline: Date.now() + 30_000,
    maxOutputChars: 5000,
    ...overrides,
  });
}

describe('WorkspaceTools', () => {
  it('refuses paths that leave the workspace', async () => {
    const tools = await open();
    await symlink(outside, path.join(root, 'link-out'));
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'secret-link'));
    await symlink(path.join(outside, 'new.txt'), path.join(root, 'dangling'));
    const attempts: [string, Record<string, unknown>][] = [
      ['read_file', { path: '../outside/secret.txt' }],
      ['read_file', { path: path.join(outside, 'secret.txt') }],
      ['read_file', { path: 'link-out/secret.txt' }],
      ['read_file', { path: 'secret-link' }],
      ['write_file', { path: 'src/../../outside/x.txt', content: 'x' }],
      ['write_file', { path: 'link-out/x.txt', content: 'x' }],
      ['write_file', { path: 'dangling', content: 'x' }],
      ['write_file', { path: 'link-out/deeper/x.txt', content: 'x' }],
      ['list_files', { path: '..' }],
    ];
    for (const [tool, args] of attempts) {
      const result = await tools.call(tool, JSON.stringify(args));
      expect(result, `${tool} ${JSON.stringify(args)}`).toMatch(
        /^error: path .* (is outside the repository|through a symlink|dangling symlink)/,
      );
    }
    expect(await exists(path.join(outside, 'x.txt'))).toBe(false);
    expect(await exists(path.join(outside, 'new.txt'))).toBe(false);
    expect(await exists(path.join(outside, 'deeper'))).toBe(false);
  });

  it('reads, lists, searches and edits inside the workspace', async () => {
    const tools = await open();
    expect(await tools.call('list_files', '{}')).toBe('src/\ntarget/');
    expect(await tools.call('list_files', JSON.stringify({ recursive: true }))).toBe(
      'src/\nsrc/main/\nsrc/main/java/\nsrc/main/java/p/\nsrc/main/java/p/A.java\ntarget/',
    );
    expect(
      await tools.call(
        'read_file',
        JSON.stringify({ path: 'src/main/java/p/A.java', start_line: 3, end_line: 3 }),
      ),
    ).toBe('src/main/java/p/A.java lines 3-3 of 5:\n     3\t  int size() { return 0; }');
    // target/ is skipped; the glob narrows to sources.
    expect(await tools.call('search', JSON.stringify({ pattern: 'size\\(' }))).toBe(
      'src/main/java/p/A.java:3: int size() { return 0; }',
    );
    expect(
      await tools.call('search', JSON.stringify({ pattern: 'size', path_glob: 'src/test/**' })),
    ).toBe('no matches');
    expect(await tools.call('search', JSON.stringify({ pattern: '(' }))).toMatch(
      /^error: invalid regular expression/,
    );
    expect(
      await tools.call(
        'replace_in_file',
        JSON.stringify({
          path: 'src/main/java/p/A.java',
          old_text: 'return 0;',
          new_text: 'return 1;',
        }),
      ),
    ).toBe('replaced 1 occurrence in src/main/java/p/A.java');
    expect(
      await tools.call(
        'replace_in_file',
        JSON.stringify({ path: 'src/main/java/p/A.java', old_text: 'absent', new_text: 'x' }),
      ),
    ).toMatch(/^error: old_text occurs 0 times/);
    expect(await readFile(path.join(root, 'src/main/java/p/A.java'), 'utf8')).toContain(
      'return 1;',
    );
    expect(
      await tools.call(
        'write_file',
        JSON.stringify({ path: 'src/main/java/q/B.java', content: 'class B {}' }),
      ),
    ).toBe('wrote 10 characters to src/main/java/q/B.java');
    expect(await readFile(path.join(root, 'src/main/java/q/B.java'), 'utf8')).toBe('class B {}');
  });

  it('answers bad calls with an error the model can read', async () => {
    const tools = await open();
    expect(await tools.call('read_file', '{"path": ')).toMatch(
      /^error: tool arguments are not valid JSON/,
    );
    expect(await tools.call('read_file', '[]')).toBe('error: tool arguments must be a JSON object');
    expect(await tools.call('read_file', '{}')).toBe("error: missing argument 'path'");
    expect(await tools.call('read_file', '{"path": "nope.txt"}')).toMatch(
      /^error: cannot read 'nope.txt'/,
    );
    expect(await tools.call('delete_everything', '{}')).toBe(
      "error: unknown tool 'delete_everything'",
    );
  });

  it('runs the replay command in the workspace within its budget', async () => {
    const tools = await open();
    expect(await tools.call('run_replay', '{}')).toMatch(/^exit code: 0\nreplay runs used: 1 of 2/);
    await writeFile(
      path.join(root, 'src/main/java/p/A.java'),
      'class A { int size() { return 1; } }',
    );
    expect(await tools.call('run_replay', '{}')).toMatch(/^exit code: 1\nreplay runs used: 2 of 2/);
    expect(await tools.call('run_replay', '{}')).toMatch(
      /^error: the replay budget of 2 runs is used up/,
    );
  });

  it('stops a replay at the run deadline', async () => {
    const tools = await open({ replayCommand: 'sleep 30', deadline: Date.now() + 300 });
    const started = Date.now();
    expect(await tools.call('run_replay', '{}')).toMatch(/^timed out \(killed\)/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
