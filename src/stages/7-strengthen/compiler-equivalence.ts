import { runProcess } from '../../core/process.js';
import { jdkTool } from '../../toolchains/maven/maven.js';

/*
 * Trivial compiler equivalence (Papadakis et al., ICSE 2015): a mutant whose classes compile to
 * the same bytecode as gold's is equivalent to gold, whatever any test says. javap's listing of
 * the code is compared, not the class files: a mutant that only moves lines (a dropped line above
 * a method) changes the line tables and constant-pool numbering, never what runs.
 */

/** The binary names of the classes a source file (source-root-relative) compiles to in a jar. */
export function classesOfSource(entries: readonly string[], sourceFile: string): string[] {
  const stem = sourceFile.replace(/\.java$/, '');
  return entries
    .filter(
      (entry) =>
        entry === `${stem}.class` || (entry.startsWith(`${stem}$`) && entry.endsWith('.class')),
    )
    .map((entry) => entry.slice(0, -'.class'.length).replace(/\//g, '.'))
    .sort();
}

/** A javap listing without what numbering alone changes: constant-pool indices, spacing. */
export function normalisedListing(listing: string): string {
  return listing
    .split('\n')
    .filter((line) => !line.startsWith('Compiled from '))
    .map((line) =>
      line
        .replace(/#\d+(,\s*#\d+)?/g, '#')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((line) => line !== '')
    .join('\n');
}

/** The code listing of a source file's classes in a production jar (`jar` and `javap`, no run). */
export async function codeListing(jar: string, sourceFile: string): Promise<string> {
  const listed = await runProcess(jdkTool('jar'), ['--list', '--file', jar], {
    timeoutMs: 120_000,
  });
  if (listed.exitCode !== 0) throw new Error(`jar --list ${jar}: ${listed.stderr.trim()}`);
  const classes = classesOfSource(listed.stdout.split('\n'), sourceFile);
  if (classes.length === 0) return '';
  const javap = await runProcess(
    jdkTool('javap'),
    ['-c', '-p', '-constants', '-classpath', jar, ...classes],
    { timeoutMs: 120_000, maxOutputBytes: 64 * 1024 * 1024 },
  );
  if (javap.exitCode !== 0 || javap.truncated) {
    throw new Error(
      `javap ${sourceFile}: ${javap.truncated ? 'listing too long' : javap.stderr.trim()}`,
    );
  }
  return normalisedListing(javap.stdout);
}
