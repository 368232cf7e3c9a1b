import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ProjectLayout } from '../../toolchains/layout.js';

/*
 * What an evaluation workspace leaves out with the witness: the co-witnesses (other existing
 * classes that expose the bug, with `build --co-witnesses hide`) and the test resources only the
 * hidden tests name. A fixture left behind (`CSV-248/csvRecord.bin`, read by the witness alone)
 * points at the witness's input as plainly as the witness would.
 */

/** The directory of test resources beside the test sources (Maven's layout). */
export function testResourcesOf(layout: ProjectLayout): string {
  return path.join(path.dirname(layout.testSources), 'resources');
}

/** Files under `dir` of the tree at `root`, project-relative with `/`, sorted; none if missing. */
async function filesUnder(root: string, dir: string): Promise<string[]> {
  const entries = await readdir(path.join(root, dir), {
    withFileTypes: true,
    recursive: true,
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) =>
      path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'),
    )
    .sort();
}

/** The string literals of a Java source, unescaped only as far as a resource name needs. */
export function stringLiterals(source: string): string[] {
  return [...source.matchAll(/"((?:[^"\\\n]|\\.)*)"/g)].map((match) =>
    match[1]!.replace(/\\(.)/g, '$1'),
  );
}

/** Whether a literal names the resource: its path under the resources directory, or its file name. */
function names(literal: string, resource: string): boolean {
  const trimmed = literal.replace(/^\/+/, '');
  return trimmed !== '' && (resource === trimmed || resource.endsWith(`/${trimmed}`));
}

/**
 * The test resources that a string literal of a hidden source names (by path or file name) and
 * that no other test source mentions at all: those leave the workspace with the hidden tests.
 */
export async function resourcesOnlyHiddenTestsName(
  root: string,
  layout: ProjectLayout,
  hiddenSources: readonly string[],
): Promise<string[]> {
  const resourcesDir = testResourcesOf(layout);
  const resources = await filesUnder(root, resourcesDir);
  if (resources.length === 0) return [];
  const hidden = new Set(hiddenSources);
  const sources = (await filesUnder(root, layout.testSources)).filter((file) =>
    file.endsWith('.java'),
  );
  const hiddenLiterals: string[] = [];
  const otherTexts: string[] = [];
  for (const file of sources) {
    const text = await readFile(path.join(root, file), 'utf8');
    if (hidden.has(file)) hiddenLiterals.push(...stringLiterals(text));
    else otherTexts.push(text);
  }
  return resources.filter((file) => {
    const resource = file.slice(resourcesDir.length + 1);
    const base = path.posix.basename(resource);
    return (
      hiddenLiterals.some((literal) => names(literal, resource)) &&
      !otherTexts.some((text) => text.includes(base))
    );
  });
}

/**
 * Of the co-witnesses to hide, those another remaining test source names (by simple class name):
 * without them that source would not compile, so they cannot leave the workspace.
 */
export async function coWitnessesOthersUse(
  root: string,
  layout: ProjectLayout,
  hiddenSources: readonly string[],
  coWitnessSources: readonly string[],
): Promise<{ source: string; usedBy: string }[]> {
  const hidden = new Set(hiddenSources);
  const sources = (await filesUnder(root, layout.testSources)).filter(
    (file) => file.endsWith('.java') && !hidden.has(file),
  );
  const used: { source: string; usedBy: string }[] = [];
  for (const coWitness of coWitnessSources) {
    const simple = path.posix.basename(coWitness, '.java');
    const pattern = new RegExp(`\\b${simple.replace(/[$]/g, '\\$')}\\b`);
    for (const file of sources) {
      if (pattern.test(await readFile(path.join(root, file), 'utf8'))) {
        used.push({ source: coWitness, usedBy: file });
        break;
      }
    }
  }
  return used;
}
