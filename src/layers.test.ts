import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * The layers under the stages give the stages what they need and never reach back into them: an
 * import from a stage would make a shared layer depend on one stage's work.
 */

const SRC = path.dirname(fileURLToPath(import.meta.url));

/** The shared layers; the stages, their driver and the CLI sit above them. */
const LAYERS_BELOW_STAGES = [
  'agents',
  'checks',
  'core',
  'coverage',
  'events',
  'jobs',
  'lang',
  'metrics',
  'mutants',
  'project',
  'records',
  'runners',
  'sandbox',
  'toolchains',
];

async function typescriptFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The relative module specifiers of a file: static, side-effect, re-export and dynamic imports. */
function relativeImports(text: string): string[] {
  const pattern = /(?:\bfrom\s+|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
  return [...text.matchAll(pattern)].map((match) => match[1]!);
}

/** The top-level directory under `src/` that a file belongs to. */
function layerOf(file: string): string {
  return path.relative(SRC, file).split(path.sep)[0]!;
}

describe('relativeImports', () => {
  it('finds multi-line, type-only, re-export and dynamic imports', () => {
    const text = [
      "import {\n  a,\n  b,\n} from '../stages/x.js';",
      "import type { C } from './c.js';",
      "export { d } from '../d.js';",
      "const e = await import('../e.js');",
      "import 'node:fs';",
    ].join('\n');
    expect(relativeImports(text)).toEqual(['../stages/x.js', './c.js', '../d.js', '../e.js']);
  });
});

describe('the layers under the stages', () => {
  it('import nothing from src/stages', async () => {
    const upward: string[] = [];
    for (const layer of LAYERS_BELOW_STAGES) {
      for (const file of await typescriptFiles(path.join(SRC, layer))) {
        for (const specifier of relativeImports(await readFile(file, 'utf8'))) {
          const target = path.resolve(path.dirname(file), specifier);
          if (layerOf(target) === 'stages') {
            upward.push(`${path.relative(SRC, file)} → ${specifier}`);
          }
        }
      }
    }
    expect(upward).toEqual([]);
  });
});
