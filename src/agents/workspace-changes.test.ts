import { mkdir, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyProjectTree, makeTempDir, removeTree } from '../core/fs.js';
import { workspaceChanges } from './workspace-changes.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await removeTree(dir);
});

async function tree(files: Record<string, string>): Promise<string> {
  const root = await makeTempDir('changes');
  dirs.push(root);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
  return root;
}

describe('workspaceChanges', () => {
  it('finds added, edited and deleted files, and leaves build output and git alone', async () => {
    const given = await tree({ 'pom.xml': '<project/>', 'src/A.java': 'class A {}' });
    const workspace = await makeTempDir('changes');
    dirs.push(workspace);
    await rm(workspace, { recursive: true });
    await copyProjectTree(given, workspace);
    await writeFile(path.join(workspace, 'src/A.java'), 'class A { int a; }');
    await writeFile(path.join(workspace, 'src/B.java'), 'class B {}');
    await unlink(path.join(workspace, 'pom.xml'));
    await mkdir(path.join(workspace, 'target'));
    await writeFile(path.join(workspace, 'target/A.class'), 'binary');
    await mkdir(path.join(workspace, '.git'));
    await writeFile(path.join(workspace, '.git/HEAD'), 'ref');
    expect(await workspaceChanges(given, workspace)).toEqual([
      { file: 'pom.xml', before: '<project/>', after: '' },
      { file: 'src/A.java', before: 'class A {}', after: 'class A { int a; }' },
      { file: 'src/B.java', before: '', after: 'class B {}' },
    ]);
  });

  it('records a symbolic link as a link to its target, which it never reads', async () => {
    const outside = await tree({ 'Clean.java': 'class Clean {}' });
    const given = await tree({ 'src/A.java': 'class A {}' });
    const workspace = await tree({ 'src/A.java': 'class A {}' });
    await symlink(path.join(outside, 'Clean.java'), path.join(workspace, 'src/Peek.java'));
    expect(await workspaceChanges(given, workspace)).toEqual([
      { file: 'src/Peek.java', before: '', after: path.join(outside, 'Clean.java'), link: true },
    ]);
  });
});
