import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { exists, sha256Text, writeFileAtomic } from '../core/fs.js';

/*
 * Artefacts a unit makes (transcripts, submitted files) kept by content hash in a directory every
 * host mounts: a worker writes each once (a second write of the same bytes is a no-op), the
 * coordinator reads them by the hashes the unit's result names. Nothing here is a database, so
 * any number of hosts may write at once.
 */
export class ArtefactStore {
  constructor(readonly root: string) {}

  private file(sha256: string): string {
    return path.join(this.root, sha256.slice(0, 2), sha256);
  }

  /** Stores `text` and returns its hash. */
  async put(text: string): Promise<string> {
    const sha256 = sha256Text(text);
    const file = this.file(sha256);
    if (!(await exists(file))) await writeFileAtomic(file, text);
    return sha256;
  }

  /** The text stored under `sha256`, checked against it. */
  async get(sha256: string): Promise<string> {
    const text = await readFile(this.file(sha256), 'utf8');
    if (sha256Text(text) !== sha256) {
      throw new Error(`artefact ${sha256} in ${this.root} does not match its hash`);
    }
    return text;
  }
}
