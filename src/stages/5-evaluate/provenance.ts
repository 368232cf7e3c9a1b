import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../../core/errors.js';
import { git } from '../../core/git.js';
import { packageRoot, packageVersion } from '../../core/package-root.js';
import { sha256Text } from '../../core/fs.js';

/*
 * Which witnessgym judged an attempt: its version and the commit of the checkout it ran from, so
 * a row can be traced to the verifier's code and `rescore` can tell its own verdicts apart.
 */

export type Checkout =
  | { kind: 'Clean'; commit: string }
  /**
   * Uncommitted changes, fingerprinted (the diff and the untracked files), so two different
   * edits of one commit are two verifiers.
   */
  | { kind: 'Dirty'; commit: string; fingerprint: string }
  /** Not a git checkout of its own (an installed package), or git could not say. */
  | { kind: 'Unknown'; reason: string };

export interface Provenance {
  version: string;
  checkout: Checkout;
}

/** The checkout `root` is the top of, read with git. */
export async function checkoutOf(root: string): Promise<Checkout> {
  try {
    // An installed package inside someone else's repository must not take that repository's commit.
    const top = await git(root, ['rev-parse', '--show-toplevel']);
    if ((await realpath(top)) !== (await realpath(root))) {
      return { kind: 'Unknown', reason: `${root} is inside the git checkout ${top}` };
    }
    const commit = await git(root, ['rev-parse', 'HEAD']);
    const status = await git(root, ['status', '--porcelain', '--untracked-files=all']);
    if (status === '') return { kind: 'Clean', commit };
    const untracked = (await git(root, ['ls-files', '--others', '--exclude-standard', '-z']))
      .split('\0')
      .filter(Boolean)
      .sort();
    const parts = [await git(root, ['diff', 'HEAD', '--binary'])];
    for (const file of untracked) {
      parts.push(file, await readFile(path.join(root, file), 'utf8'));
    }
    return { kind: 'Dirty', commit, fingerprint: sha256Text(parts.join('\0')).slice(0, 12) };
  } catch (error) {
    return { kind: 'Unknown', reason: errorMessage(error).split('\n')[0]! };
  }
}

let cached: Promise<Provenance> | undefined;

/** This witnessgym's provenance, read once per process. */
export function provenance(): Promise<Provenance> {
  cached ??= checkoutOf(packageRoot()).then((checkout) => ({
    version: packageVersion(),
    checkout,
  }));
  return cached;
}

/** The verifier's identity: the commit, with the fingerprint of uncommitted changes. */
export function verifierId({ version, checkout }: Provenance): string {
  switch (checkout.kind) {
    case 'Clean':
      return checkout.commit;
    case 'Dirty':
      return `${checkout.commit}+dirty.${checkout.fingerprint}`;
    case 'Unknown':
      return `version ${version}, commit unknown`;
  }
}

/** The entries of an attempt row's `tools` record. */
export function provenanceTools(provenance: Provenance): Record<string, string> {
  const { checkout } = provenance;
  return {
    witnessgym: provenance.version,
    witnessgymCommit: checkout.kind === 'Unknown' ? 'unknown' : checkout.commit,
    witnessgymTree:
      checkout.kind === 'Clean'
        ? 'clean'
        : checkout.kind === 'Dirty'
          ? `dirty ${checkout.fingerprint}`
          : `unknown: ${checkout.reason}`,
  };
}
