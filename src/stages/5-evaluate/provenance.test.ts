import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../../core/fs.js';
import { git } from '../../core/git.js';
import { checkoutOf, provenanceTools, verifierId } from './provenance.js';

describe('provenance: the checkout witnessgym runs from', () => {
  it('names the commit, fingerprints uncommitted changes, and takes no enclosing repository', async () => {
    const repo = await makeTempDir('provenance');
    await git(repo, ['init', '-q']);
    await mkdir(path.join(repo, 'package'));
    await writeFile(path.join(repo, 'package', 'index.js'), 'one\n');
    await git(repo, ['add', '.']);
    await git(repo, ['commit', '-q', '-m', 'first']);
    const commit = await git(repo, ['rev-parse', 'HEAD']);

    const clean = await checkoutOf(repo);
    expect(clean).toEqual({ kind: 'Clean', commit });
    expect(verifierId({ version: '1.0.0', checkout: clean })).toBe(commit);

    await writeFile(path.join(repo, 'package', 'index.js'), 'two\n');
    const edited = await checkoutOf(repo);
    await writeFile(path.join(repo, 'package', 'index.js'), 'three\n');
    const editedAgain = await checkoutOf(repo);
    expect(edited).toMatchObject({ kind: 'Dirty', commit });
    // Two different edits of one commit are two verifiers.
    expect(verifierId({ version: '1.0.0', checkout: edited })).not.toBe(
      verifierId({ version: '1.0.0', checkout: editedAgain }),
    );
    await writeFile(path.join(repo, 'package', 'index.js'), 'one\n');
    await writeFile(path.join(repo, 'untracked.js'), 'new\n');
    expect(await checkoutOf(repo)).toMatchObject({ kind: 'Dirty', commit });

    // An installed package inside another project's repository is not that project's commit.
    const nested = await checkoutOf(path.join(repo, 'package'));
    expect(nested.kind).toBe('Unknown');
    expect(provenanceTools({ version: '1.0.0', checkout: nested })).toMatchObject({
      witnessgym: '1.0.0',
      witnessgymCommit: 'unknown',
    });
  });
});
