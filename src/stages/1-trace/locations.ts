import { readdir, readFile } from 'node:fs/promises';
import type { ProjectLayout } from '../../toolchains/layout.js';
import path from 'node:path';
import { z } from 'zod';
import type { TracedMethod } from '../../toolchains/jvm/runner.js';

/** A production method as the execution context names it. */
export const MethodLocationSchema = z.strictObject({
  /** Source file relative to the project root; null when no source was found. */
  file: z.string().nullable(),
  /** Binary class name, e.g. org.json.simple.JsonArray$1 for an anonymous class. */
  className: z.string(),
  /** Method name as written in source; constructors by their class name, `<clinit>` for static initialisers. */
  method: z.string(),
  /** Name and parameter types, which tell overloads apart, e.g. parse(java.io.Reader). */
  signature: z.string(),
  /** Line of the declaration (where the name stands); null without line information. */
  line: z.number().int().nullable(),
});
export type MethodLocation = z.infer<typeof MethodLocationSchema>;

const PRIMITIVES: Record<string, string> = {
  Z: 'boolean',
  B: 'byte',
  C: 'char',
  S: 'short',
  I: 'int',
  J: 'long',
  F: 'float',
  D: 'double',
  V: 'void',
};

/** Parameter types of a JVM method descriptor, written as Java source types. */
export function parameterTypes(descriptor: string): string[] {
  const types: string[] = [];
  let i = descriptor.indexOf('(') + 1;
  while (descriptor[i] !== ')' && i < descriptor.length) {
    let dims = 0;
    while (descriptor[i] === '[') {
      dims++;
      i++;
    }
    let type: string;
    if (descriptor[i] === 'L') {
      const end = descriptor.indexOf(';', i);
      type = descriptor
        .slice(i + 1, end)
        .replace(/\//g, '.')
        .replace(/\$/g, '.');
      i = end + 1;
    } else {
      type = PRIMITIVES[descriptor[i]!] ?? '?';
      i++;
    }
    types.push(type + '[]'.repeat(dims));
  }
  return types;
}

/** The name a class has in source: `Local` for the local class Outer$1Local, `1` if anonymous. */
function simpleClassName(binaryName: string): string {
  const afterPackage = binaryName.slice(binaryName.lastIndexOf('.') + 1);
  const last = afterPackage.slice(afterPackage.lastIndexOf('$') + 1);
  return /^\d+$/.test(last) ? last : last.replace(/^\d+/, '');
}

/**
 * Finds where production sources live: every source root under src/main and the generated
 * sources under target/generated-sources, indexed by package path and file name.
 */
export class SourceIndex {
  private constructor(
    private readonly root: string,
    private readonly byPackagePath: Map<string, string>,
    private readonly lines = new Map<string, string[]>(),
  ) {}

  static async build(projectRoot: string, layout: ProjectLayout): Promise<SourceIndex> {
    const index = new Map<string, string>();
    // Generators write either straight into the generated-sources directory (jackson's replacer)
    // or into a directory per tool below it (annotations/): both are tried as source roots.
    const generated = path.join(projectRoot, layout.generatedSources);
    const roots: string[] = [];
    for (const base of [path.join(projectRoot, layout.mainSourceRoots), generated]) {
      try {
        for (const entry of await readdir(base, { withFileTypes: true })) {
          if (entry.isDirectory()) roots.push(path.join(base, entry.name));
        }
      } catch {
        // no such source tree
      }
    }
    roots.push(generated);
    for (const sourceRoot of roots) {
      let entries;
      try {
        entries = await readdir(sourceRoot, { withFileTypes: true, recursive: true });
      } catch {
        continue; // no generated sources
      }
      for (const entry of entries) {
        if (!entry.isFile() || !entry.name.endsWith('.java')) continue;
        const full = path.join(entry.parentPath, entry.name);
        const key = path.relative(sourceRoot, full).split(path.sep).join('/');
        if (!index.has(key))
          index.set(key, path.relative(projectRoot, full).split(path.sep).join('/'));
      }
    }
    return new SourceIndex(projectRoot, index);
  }

  /** The project-relative source of a class, from its package and SourceFile attribute. */
  fileOf(owner: string, sourceFile: string | null): string | null {
    const pkg = owner.includes('/') ? owner.slice(0, owner.lastIndexOf('/') + 1) : '';
    const outer = owner.slice(pkg.length).split('$')[0]!;
    return this.byPackagePath.get(`${pkg}${sourceFile ?? `${outer}.java`}`) ?? null;
  }

  async sourceLines(file: string): Promise<string[]> {
    let lines = this.lines.get(file);
    if (!lines) {
      lines = (await readFile(path.join(this.root, file), 'utf8')).split('\n');
      this.lines.set(file, lines);
    }
    return lines;
  }
}

/** How far above its first line of code a declaration's name may stand (long signatures). */
const HEADER_SEARCH_LINES = 40;

/**
 * The declaration line of a method: from its first line of code upwards, the nearest line that
 * names it followed by `(` (or, for a static initialiser, `static {`).
 */
function declarationLine(lines: string[], firstCodeLine: number, name: string): number {
  const pattern =
    name === '<clinit>'
      ? /\bstatic\s*\{/
      : new RegExp(`(^|[^\\w$])${name.replace(/\$/g, '\\$')}\\s*(<[^>]*>\\s*)?\\(`);
  for (let line = firstCodeLine; line >= Math.max(1, firstCodeLine - HEADER_SEARCH_LINES); line--) {
    if (pattern.test(lines[line - 1] ?? '')) return line;
  }
  return firstCodeLine;
}

export async function locate(method: TracedMethod, sources: SourceIndex): Promise<MethodLocation> {
  const className = method.owner.replace(/\//g, '.');
  const simple = simpleClassName(className);
  // An anonymous class's constructor has no name in source.
  const sourceName = method.name === '<init>' && !/^\d+$/.test(simple) ? simple : method.name;
  const file = sources.fileOf(method.owner, method.source);
  let line = method.line;
  if (file && line !== null) {
    line = declarationLine(await sources.sourceLines(file), line, sourceName);
  }
  return {
    file,
    className,
    method: sourceName,
    signature: `${sourceName}(${parameterTypes(method.descriptor).join(', ')})`,
    line,
  };
}
