import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, resolveCacheDir } from '../core/cache.js';
import { makeTempDir, removeTree } from '../core/fs.js';
import { runProcess } from '../core/process.js';
import { jdkTool } from '../toolchains/maven/maven.js';
import {
  coverageOfLines,
  ensureJacoco,
  jacocoAgentArg,
  readLineCoverage,
  type JacocoJars,
  type LineCoverage,
} from './jacoco.js';

/*
 * A two-method class run under the agent with only one method called: its lines are covered, the
 * other's missed. The jars are downloaded once into the test cache.
 */

const SOURCE = `package demo;

public class Main {
  static int called(int x) {
    int doubled = x * 2;
    return doubled + 1;
  }

  static int notCalled(int x) {
    int tripled = x * 3;
    return tripled - 1;
  }

  public static void main(String[] args) {
    System.out.println(called(args.length));
  }
}
`;

const sourceLines = SOURCE.split('\n');

/** 1-based number of the line holding `text`. */
function lineOf(text: string): number {
  const index = sourceLines.findIndex((line) => line.includes(text));
  if (index < 0) throw new Error(`no line holds ${text}`);
  return index + 1;
}

let work: string;
let jars: JacocoJars;
let classes: string;

async function run(command: string, args: string[]): Promise<void> {
  const result = await runProcess(command, args, { cwd: work, timeoutMs: 60_000 });
  if (result.exitCode !== 0) throw new Error(`${result.command} failed: ${result.stderr}`);
}

beforeAll(async () => {
  work = await makeTempDir('jacoco-test');
  jars = await ensureJacoco(cacheLayout(resolveCacheDir()));
  await mkdir(path.join(work, 'demo'));
  await writeFile(path.join(work, 'demo', 'Main.java'), SOURCE);
  classes = path.join(work, 'classes');
  await run(jdkTool('javac'), ['-d', classes, path.join('demo', 'Main.java')]);
}, 180_000);

afterAll(async () => {
  await removeTree(work);
});

function coverageOf(coverage: LineCoverage, lines: number[]) {
  if (coverage.kind !== 'Measured') throw new Error(`no coverage: ${JSON.stringify(coverage)}`);
  return coverageOfLines(coverage, 'demo/Main.java', lines);
}

describe('JaCoCo line coverage', () => {
  /** Runs demo.Main under the agent with these includes and reads what it recorded. */
  async function measuredRun(execName: string, includes: string[]) {
    const execFile = path.join(work, execName);
    await run(jdkTool('java'), [
      jacocoAgentArg(jars.agentJar, execFile, includes),
      '-cp',
      classes,
      'demo.Main',
    ]);
    return readLineCoverage({
      cliJar: jars.cliJar,
      execFile,
      classDirs: [classes],
      timeoutMs: 60_000,
    });
  }

  it('finds the jars it downloaded already in the cache', async () => {
    expect(await ensureJacoco(cacheLayout(resolveCacheDir()))).toEqual(jars);
  });

  it('covers the lines of the method called and misses the other method', async () => {
    const coverage = await measuredRun('run.exec', ['demo.*']);
    const calledLines = [lineOf('int doubled'), lineOf('return doubled')];
    const otherLines = [lineOf('int tripled'), lineOf('return tripled')];
    expect(coverageOf(coverage, calledLines)).toEqual({ lines: 2, covered: 2 });
    expect(coverageOf(coverage, otherLines)).toEqual({ lines: 2, covered: 0 });
    // The method's signature line and the blank line after it have no code of their own.
    expect(coverageOf(coverage, [lineOf('static int called'), lineOf('int doubled') + 2])).toEqual({
      lines: 0,
      covered: 0,
    });
  }, 30_000);

  it('measures nothing covered when no class the agent includes ran', async () => {
    const coverage = await measuredRun('nothing.exec', ['elsewhere.*']);
    expect(coverageOf(coverage, [lineOf('int doubled'), lineOf('int tripled')])).toEqual({
      lines: 2,
      covered: 0,
    });
  }, 30_000);

  // An empty file is what a JVM killed before its exit leaves: the agent creates it at start.
  it('tells a missing or empty exec file apart from nothing covered', async () => {
    const options = { cliJar: jars.cliJar, classDirs: [classes], timeoutMs: 60_000 };
    const missing = path.join(work, 'never-written.exec');
    expect(await readLineCoverage({ ...options, execFile: missing })).toEqual({
      kind: 'NoExecutionData',
      cause: 'missing',
      execFile: missing,
    });
    const empty = path.join(work, 'empty.exec');
    await writeFile(empty, '');
    expect(await readLineCoverage({ ...options, execFile: empty })).toMatchObject({
      kind: 'NoExecutionData',
      cause: 'empty',
    });
  });

  it('builds the agent flag and refuses what the JVM or argLine would split', () => {
    expect(jacocoAgentArg('/c/agent.jar', '/t/run.exec', ['a.b.*', 'c.D'])).toBe(
      '-javaagent:/c/agent.jar=destfile=/t/run.exec,includes=a.b.*:c.D,append=true',
    );
    expect(() => jacocoAgentArg('/c/agent.jar', '/t/run.exec', [])).toThrow(/include/);
    expect(() => jacocoAgentArg('/c/a=b/agent.jar', '/t/run.exec', ['a.*'])).toThrow(/'='/);
    expect(() => jacocoAgentArg('/c/agent.jar', '/my runs/run.exec', ['a.*'])).toThrow(
      /whitespace/,
    );
  });
});
