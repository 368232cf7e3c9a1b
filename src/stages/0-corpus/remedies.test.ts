import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { matchingRemedies, REMEDIES } from './remedies.js';

const fixtures = path.resolve(import.meta.dirname, '../../../test/fixtures/maven-output');
const load = (name: string) => readFileSync(path.join(fixtures, name), 'utf8');
const ids = (output: string) => matchingRemedies(output).map((match) => match.remedy.id);

describe('remedies for known build failures (real Maven output)', () => {
  it("pins the compiler plugin when Maven's default 3.1 compiles at level 5, before raising levels", () => {
    const matches = matchingRemedies(load('ladder-unpinned-compiler-3.1.txt'));
    expect(matches.map((match) => match.remedy.id)).toEqual([
      'pin-compiler-plugin',
      'raise-java-level',
    ]);
    expect(matches[0]!.trigger).toBe('Source option 5 is no longer supported. Use 7 or later.');
  });

  it('raises an unsupported release of a modern compiler plugin, without pinning it', () => {
    expect(ids(load('ladder-release-6.txt'))).toEqual(['raise-java-level']);
  });

  it('compiles against --release 8 when test code is ambiguous against the JDK 11+ API', () => {
    const [match, ...rest] = matchingRemedies(load('ladder-toarray-ambiguous.txt'));
    expect(rest).toEqual([]);
    expect(match!.remedy.adds).toEqual([
      { kind: 'maven-args', args: ['-Dmaven.compiler.release=8'] },
    ]);
    expect(match!.trigger).toMatch(/BagTest\.java:\[24,55\] reference to toArray is ambiguous$/);
  });

  it('pins maven-bundle-plugin 5 when an older one fails on JDK 17', () => {
    const [match] = matchingRemedies(load('ladder-bundle-manifest-jdk17.txt'));
    expect(match!.remedy.id).toBe('pin-bundle-plugin');
    expect(match!.trigger).toMatch(
      /^org\.apache\.felix:maven-bundle-plugin:4\.1\.0:manifest: .*ConcurrentModificationException$/,
    );
  });

  it('skips a release-checking plugin that failed', () => {
    expect(ids(load('enforcer-rule-failed.txt'))).toEqual(['skip-enforcer']);
    expect(
      ids(
        '[ERROR] Failed to execute goal org.apache.rat:apache-rat-plugin:0.13:check (rat-check) on project p: Too many files with unapproved license: 2',
      ),
    ).toEqual(['skip-rat']);
  });

  it('offers nothing for an error in the code itself', () => {
    expect(ids(load('compile-error-compiler-2.3.2.txt'))).toEqual([]);
  });

  it('unbinds a bundle manifest that fails even on a modern bundle plugin (joda-convert 2.2.2)', () => {
    expect(
      ids(
        '[ERROR] Failed to execute goal org.apache.felix:maven-bundle-plugin:5.1.8:manifest (bundle-manifest) on project joda-convert: Internal error in maven-bundle-plugin: ConcurrentModificationException -> [Help 1]',
      ),
    ).toEqual(['disable-bundle-manifest']);
  });

  it("unbinds a build plugin whose own artifact Central lacks, after the plugin's own skip flag (commons-cli 1.4)", () => {
    const output = load('animal-sniffer-java80-signature.txt');
    const matches = matchingRemedies(output);
    expect(matches.map((match) => match.remedy.id)).toEqual([
      'skip-animal-sniffer',
      'skip-unresolvable-plugin',
    ]);
    expect(matches[1]!.trigger).toMatch(
      /^org\.codehaus\.mojo:animal-sniffer-maven-plugin:1\.15:check: Failed to obtain signature: .*Could not find artifact org\.codehaus\.mojo\.signature:java80:signature:1\.0/,
    );
    const cachedMiss = output.replace(
      /Could not find artifact (\S+) in central \((\S+)\)/,
      '$1 was not found in $2 during a previous attempt. This failure was cached in the local repository',
    );
    expect(ids(cachedMiss)).toContain('skip-unresolvable-plugin');
    // A transfer that failed is not an artifact Central lacks; the build's own plugins stay.
    expect(ids(output.replace('Could not find artifact', 'Could not transfer artifact'))).toEqual([
      'skip-animal-sniffer',
    ]);
    expect(
      ids(
        '[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile (default-compile) on project p: Execution default-compile of goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile failed: Could not find artifact org.example:processor:jar:1.0 in central',
      ),
    ).toEqual([]);
  });

  it('has unique ids and a signature for each remedy', () => {
    expect(new Set(REMEDIES.map((remedy) => remedy.id)).size).toBe(REMEDIES.length);
    for (const remedy of REMEDIES) {
      expect(remedy.signature.output ?? remedy.signature.goal).toBeDefined();
      expect(remedy.adds.length).toBeGreaterThan(0);
    }
  });
});
