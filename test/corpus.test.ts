import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../src/core/process.js';
import { loadRecipes } from '../src/project/recipe.js';
import { cli, editedCopy, fetchCorpus } from './helpers.js';

/*
 * Every corpus project is fetched for real (Debian source package, Maven Central) and must
 * build with a green baseline for at least 90% of its test classes.
 */

interface FetchJson {
  name: string;
  path: string;
  commit: string;
  baseline: { classes: number; usable: number; usableRatio: number };
}

const recipes = await loadRecipes();

describe('corpus list', () => {
  it('lists at least six projects as JSON', async () => {
    const result = await cli(['corpus', 'list', '--json']);
    expect(result.exitCode).toBe(0);
    const rows = result.json as { name: string; source: string; cache: { kind: string } }[];
    expect(rows.length).toBeGreaterThanOrEqual(6);
    expect(rows.map((row) => row.name)).toContain('json-simple');
    for (const row of rows) expect(['Fetched', 'NotFetched']).toContain(row.cache.kind);
    for (const row of rows) expect(row.source).toMatch(/^debian:[\w.+-]+=[\w.+~-]+$/);
  });

  it('rejects an unknown name with one line and exit code 2', async () => {
    const result = await cli(['corpus', 'fetch', 'not-a-project']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /unknown corpus project 'not-a-project': not a corpus name \(known: /,
    );
  });
});

describe('corpus fetch of a local Maven project', () => {
  it('accepts a path where a corpus name is accepted', async () => {
    const pristine = await fetchCorpus('json-simple');
    const local = await editedCopy(pristine, []);
    const result = await cli(['corpus', 'fetch', local, '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const fetched = result.json as FetchJson;
    expect(fetched.name).toBe('project');
    expect(fetched.path).toMatch(/projects\/project@local-[0-9a-f]{8}\/pristine$/);
    expect(fetched.baseline.usable).toBe(8);
  });

  it('reports a project that does not compile as CompileError with exit code 1', async () => {
    const pristine = await fetchCorpus('json-simple');
    const broken = await editedCopy(pristine, [
      {
        file: 'src/main/java/org/json/simple/JsonArray.java',
        from: 'destination.add((T)o);',
        to: 'destination.add((T)o)',
      },
    ]);
    const result = await cli(['corpus', 'fetch', broken]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr.trim().split('\n').pop()).toMatch(
      /^witnessgym: corpus project project does not build: CompileError \(main sources\): .*JsonArray\.java:\d+/,
    );
  });

  it('rejects a directory without a pom.xml', async () => {
    const result = await cli(['corpus', 'fetch', '/tmp']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/\/tmp is not a Maven project \(no pom\.xml\)/);
  });
});

describe.each(recipes.map((recipe) => recipe.name))('corpus fetch %s', (name) => {
  it('builds a pristine one-commit repo with a green baseline for >= 90% of test classes', async () => {
    // A first fetch downloads, builds and runs a whole suite: say so, or the run looks stuck.
    console.log(`corpus fetch ${name} into the test cache (minutes when not cached yet)`);
    const result = await cli(['corpus', 'fetch', name, '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const fetched = result.json as FetchJson;
    expect(fetched.baseline.classes).toBeGreaterThan(0);
    expect(fetched.baseline.usableRatio).toBeGreaterThanOrEqual(0.9);

    const log = await runProcess('git', ['log', '--format=%H'], { cwd: fetched.path });
    expect(log.stdout.trim().split('\n')).toEqual([fetched.commit]);
    const status = await runProcess('git', ['status', '--porcelain'], { cwd: fetched.path });
    expect(status.stdout).toBe('');
    expect(path.basename(fetched.path)).toBe('pristine');

    // A second fetch finds everything done and changes nothing.
    const again = await cli(['corpus', 'fetch', name, '--json']);
    expect(again.exitCode).toBe(0);
    expect((again.json as FetchJson).commit).toBe(fetched.commit);
    expect(again.durationMs).toBeLessThan(5000);
  });
});
