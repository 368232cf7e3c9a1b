import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveCacheDir } from '../src/core/cache.js';
import { makeTempDir } from '../src/core/fs.js';
import type { AttemptRow } from '../src/stages/5-evaluate/records.js';
import { STORE_FILE } from '../src/stages/5-evaluate/store.js';
import { cli, editedCopy, fetchCorpus, oneCaseBench } from './helpers.js';

/*
 * The offline controls on a project whose pom sets Surefire's argLine literally (issue 22, item
 * 9): such an argLine replaced the argument that attached JaCoCo, so before the verifier launched
 * the test JVM itself every witness attempt was a HarnessFault ("coverage: no execution data").
 * The fixture is json-simple fetched as a local project (no recipe) with that one pom change.
 */

const FIXTURE_FLAGS = ['-Xss512k', '-Dwitnessgym.fixture=argline'];
const SUREFIRE_WITH_ARGLINE = `    <build>
        <plugins>
            <plugin>
                <groupId>org.apache.maven.plugins</groupId>
                <artifactId>maven-surefire-plugin</artifactId>
                <version>3.5.2</version>
                <configuration>
                    <argLine>${FIXTURE_FLAGS.join(' ')}</argLine>
                </configuration>
            </plugin>
`;

let bench: string;
let work: string;
let caseId: string;

beforeAll(async () => {
  const pristine = await fetchCorpus('json-simple');
  const project = await editedCopy(pristine, [
    { file: 'pom.xml', from: '    <build>\n        <plugins>\n', to: SUREFIRE_WITH_ARGLINE },
  ]);
  const fetched = await cli(['corpus', 'fetch', project, '--json']);
  expect(fetched.exitCode, fetched.stderr).toBe(0);
  work = await makeTempDir('evaluate-argline');
  const built = await oneCaseBench(project, work);
  expect(built.cases).toBe(1);
  bench = built.bench;
  caseId = built.record.id;
});

async function evaluate(run: string, agent: string): Promise<AttemptRow[]> {
  const result = await cli([
    'evaluate',
    bench,
    '--agent',
    agent,
    '--setting',
    'NoEC',
    '--attempts',
    '1',
    '--run',
    run,
    '--json',
  ]);
  expect(result.exitCode, result.stderr).toBe(0);
  const db = new Database(path.join(run, STORE_FILE), { readonly: true });
  try {
    return (
      db.prepare(`SELECT row FROM attempts WHERE state = 'done'`).all() as { row: string }[]
    ).map((r) => JSON.parse(r.row) as AttemptRow);
  } finally {
    db.close();
  }
}

describe('witnessgym evaluate on a project whose pom sets Surefire argLine', () => {
  it("witness succeeds with change coverage recorded, none does not, and the pom's flags reach the test JVM", async () => {
    const witness = await evaluate(path.join(work, 'run-witness'), 'witness');
    expect(witness.map((row) => row.diagnosis.kind)).toEqual(['Success']);
    expect(witness[0]!.coverage).not.toBeNull();
    expect(witness[0]!.coverage!.members.some((member) => member.reached)).toBe(true);

    const none = await evaluate(path.join(work, 'run-none'), 'none');
    expect(none).toHaveLength(1);
    expect(none[0]!.diagnosis.kind).not.toBe('Success');

    // The pom's own flags stay: the harness's record of each side it built for the sandboxed
    // runs holds the JVM flags it launches the test JVM with.
    const builds = path.join(resolveCacheDir(), 'evaluation-builds');
    const dirs = (await readdir(builds)).filter((name) => name.startsWith(`${caseId}-`));
    const sides: string[] = [];
    for (const dir of dirs) {
      const built = (await readdir(path.join(builds, dir))).filter((name) =>
        ['buggy', 'clean'].includes(name),
      );
      for (const side of built) {
        const prepared = JSON.parse(
          await readFile(path.join(builds, dir, side, 'prepared.json'), 'utf8'),
        ) as { jvmArgs: string[] };
        expect(prepared.jvmArgs).toEqual(expect.arrayContaining(FIXTURE_FLAGS));
        sides.push(side);
      }
    }
    expect(sides.sort()).toEqual(['buggy', 'clean']);
  });
});
