import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The witnessgym package directory, found from this file whether run from src/ or dist/. */
export function packageRoot(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string };
      if (name === 'witnessgym') return (cached = dir);
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot locate the witnessgym package root');
    dir = parent;
  }
}

export function packageVersion(): string {
  const manifest = path.join(packageRoot(), 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}
