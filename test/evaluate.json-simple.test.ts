import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, projectCache, resolveCacheDir } from '../src/core/cache.js';
import { compileTests, isolatedJavaSetup, runTestClass } from '../src/sandbox/java-runs.js';
import { caseProject } from '../src/stages/4-archive/materialise.js';
import { preparedSide } from '../src/stages/5-evaluate/prepared-case.js';
import { testSourceFile } from '../src/toolchains/layout.js';
import { makeTempDir, removeTree, sha256Text } from '../src/core/fs.js';
import { packageRoot } from '../src/core/package-root.js';
import { diffHunks } from '../src/core/diff-stats.js';
import type { CaseRecord } from '../src/stages/4-archive/case.js';
import type { AttemptRow } from '../src/stages/5-evaluate/records.js';
import { STORE_FILE } from '../src/stages/5-evaluate/store.js';
import { startFakeOpenAI } from './fixtures/agents/fake-openai-server.js';
import { cli, processesMentioning } from './helpers.js';
import { sharedOneCaseBench } from './shared-fixture.js';

/*
 * `witnessgym evaluate` end to end on a json-simple benchmark made by `witnessgym build`: the
 * offline agents calibrate the oracle (witness 100%, none 0%, existing-tests a give-away rate), a
 * run killed with SIGKILL resumes without losing or doubling rows, and each known attack on the
 * oracle is scored as a failure or a violation, never a success.
 */

let bench: string;
let record: CaseRecord;
let work: string;

beforeAll(async () => {
  work = await makeTempDir('evaluate');
  ({ bench, record } = await sharedOneCaseBench(work));
});

interface Summary {
  items: number;
  attemptsRun: number;
  alreadyDone: number;
  interruptedBefore: number;
  notEvaluated: unknown[];
  tables: {
    byAgentSetting: {
      agent: string;
      settings: { setting: string; strict: { successes: number; n: number } }[];
    }[];
    giveAway: { overall: { successes: number; n: number } } | null;
  };
}

async function evaluate(run: string, args: string[]): Promise<Summary> {
  const result = await cli(['evaluate', bench, '--run', run, '--json', ...args]);
  expect(result.exitCode, result.stderr).toBe(0);
  return result.json as Summary;
}

function rowsOf(run: string): { rows: AttemptRow[]; text: (hash: string) => string } {
  const db = new Database(path.join(run, STORE_FILE), { readonly: true });
  try {
    const rows = (
      db.prepare(`SELECT row FROM attempts WHERE state = 'done'`).all() as { row: string }[]
    ).map((r) => JSON.parse(r.row) as AttemptRow);
    const files = new Map(
      (
        db.prepare(`SELECT sha256, content FROM files`).all() as {
          sha256: string;
          content: string;
        }[]
      ).map((f) => [f.sha256, f.content]),
    );
    return { rows, text: (hash) => files.get(hash) ?? '' };
  } finally {
    db.close();
  }
}

async function scripted(
  name: string,
  files: Record<string, string>,
  extra: string[] = [],
): Promise<AttemptRow[]> {
  const script = path.join(work, `${name}.json`);
  await writeFile(script, JSON.stringify({ attempts: [{ files }] }));
  const run = path.join(work, `run-${name}`);
  await evaluate(run, [
    '--agent',
    'scripted',
    '--script',
    script,
    '--setting',
    'NoEC',
    '--attempts',
    '1',
    ...extra,
  ]);
  return rowsOf(run).rows;
}

const javaTest = (body: string, imports = '') => `package {testPackage};

import static org.junit.Assert.*;
import org.junit.Test;
${imports}
public class {testClass} {
    @Test
    public void attack() throws Exception {
${body}
    }
}
`;

describe('witnessgym evaluate: the offline agents', () => {
  it('witness succeeds on every case and setting, none on none, existing-tests gives a rate', async () => {
    const witness = await evaluate(path.join(work, 'run-offline'), ['--agent', 'witness']);
    expect(witness.items).toBe(2);
    expect(witness.notEvaluated).toEqual([]);
    const rows = rowsOf(path.join(work, 'run-offline')).rows;
    expect(rows.map((row) => row.diagnosis.kind)).toEqual(['Success', 'Success']);
    for (const row of rows) {
      expect(row.paperSuccess).toBe(true);
      expect(row.coverage?.members.some((member) => member.reached)).toBe(true);
    }

    const none = await evaluate(path.join(work, 'run-offline'), [
      '--agent',
      'none',
      '--attempts',
      '1',
    ]);
    const noneRow = none.tables.byAgentSetting.find((row) => row.agent === 'none')!;
    expect(noneRow.settings.map((s) => s.strict.successes)).toEqual([0, 0]);
    // The witness's rows are still there: one run directory holds several agents.
    expect(none.tables.byAgentSetting.map((row) => row.agent)).toEqual(['none', 'witness']);

    const existing = await evaluate(path.join(work, 'run-offline'), [
      '--agent',
      'existing-tests',
      '--setting',
      'NoEC',
      '--attempts',
      '1',
    ]);
    expect(existing.tables.giveAway?.overall.n).toBe(1);
  });

  it('resumes a run killed with SIGKILL without losing or doubling a row', async () => {
    const run = path.join(work, 'run-killed');
    const child = spawn(
      process.execPath,
      [
        path.join(packageRoot(), 'dist', 'src', 'cli', 'main.js'),
        'evaluate',
        bench,
        '--agent',
        'witness',
        '--run',
        run,
      ],
      { detached: true, stdio: 'ignore' },
    );
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    // Kill once the first attempt is in flight: its agent has run, its verification has not ended.
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      if (child.exitCode !== null)
        throw new Error(`evaluate ended (${child.exitCode}) before the kill`);
      try {
        const db = new Database(path.join(run, STORE_FILE), { readonly: true });
        const running = db
          .prepare(`SELECT COUNT(*) AS n FROM attempts WHERE state = 'running'`)
          .get() as { n: number };
        db.close();
        if (running.n > 0) break;
      } catch {
        // Not created yet.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
    process.kill(-child.pid!, 'SIGKILL');
    await exited;

    const resumed = await evaluate(run, ['--agent', 'witness']);
    expect(resumed.interruptedBefore).toBe(1);
    const rows = rowsOf(run).rows;
    const keys = rows.map((row) => `${row.case.caseId} ${row.setting} ${row.attempt}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(rows.map((row) => [row.setting, row.diagnosis.kind]).sort()).toEqual([
      ['NoEC', 'Success'],
      ['WithEC', 'Success'],
    ]);
    // A second rerun finds everything done.
    const again = await evaluate(run, ['--agent', 'witness']);
    expect(again).toMatchObject({ attemptsRun: 0, alreadyDone: 2, interruptedBefore: 0 });
  });
});

/** The hidden witness, as a scripted agent or model is handed it by the test. */
async function hiddenWitness(): Promise<{ path: string; text: string }> {
  const file = path.join(bench, 'hidden', record.id, 'witness.json');
  const witness = JSON.parse(await readFile(file, 'utf8')) as { path: string };
  const text = await readFile(path.join(bench, 'hidden', record.id, 'files', witness.path), 'utf8');
  return { path: witness.path, text };
}

describe('witnessgym evaluate: the command and openai adapters', () => {
  it('runs a scripted program in the sandbox, whose mvn the harness answers', async () => {
    const witness = await hiddenWitness();
    const scriptDir = await makeTempDir('scripted-agent');
    const script = path.join(scriptDir, 'script.json');
    const recordFile = path.join(scriptDir, 'record.jsonl');
    await writeFile(
      script,
      JSON.stringify({
        record: recordFile,
        attempts: [
          { actions: [{ do: 'replay' }, { do: 'print', text: 'first try: nothing written' }] },
          {
            actions: [
              { do: 'write', file: witness.path, content: witness.text },
              { do: 'replay' },
              { do: 'report', kind: 'valid' },
            ],
          },
        ],
      }),
    );
    const fixtures = path.join(packageRoot(), 'test', 'fixtures', 'agents');
    const run = path.join(work, 'run-command');
    await evaluate(run, [
      '--agent',
      'command',
      '--agent-command',
      `node ${path.join(fixtures, 'scripted-agent.mjs')} --script ${script}`,
      '--sandbox-read',
      fixtures,
      '--sandbox-write',
      scriptDir,
      '--setting',
      'NoEC',
    ]);
    const { rows, text } = rowsOf(run);
    expect(rows.map((row) => row.diagnosis.kind)).toEqual(['NoTest', 'Success']);
    // The sandbox's mvn ran the witness on the buggy code: a test failure, exit 1.
    expect(text(rows[1]!.transcript)).toContain('replay exited 1');
    // The second prompt carries the first attempt's feedback.
    const runs = (await readFile(recordFile, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { prompt: string; cwd: string; replayExit?: number });
    expect(runs[1]!.prompt).toContain('Attempt 1 of 3 was not accepted');
    expect(runs[0]!.cwd).toBe('/workspace');
  });

  it('runs the built-in agent against a local OpenAI-compatible server', async () => {
    const witness = await hiddenWitness();
    const server = await startFakeOpenAI([
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: witness.path, content: witness.text } },
        ],
      },
      { toolCalls: [{ name: 'run_replay', arguments: {} }] },
      { content: 'TRIGGER_REPORT_JSON: {"summary":"scripted"}' },
    ]);
    const run = path.join(work, 'run-openai');
    try {
      process.env.WITNESSGYM_OPENAI_API_KEY = 'test-key';
      await evaluate(run, [
        '--agent',
        'openai',
        '--model',
        'fake-model',
        '--base-url',
        server.baseURL,
        '--setting',
        'WithEC',
        '--attempts',
        '1',
      ]);
    } finally {
      delete process.env.WITNESSGYM_OPENAI_API_KEY;
      await server.close();
    }
    const rows = rowsOf(run).rows;
    expect(rows.map((row) => row.diagnosis.kind)).toEqual(['Success']);
    // The fake endpoint reports one prompt and one completion token per response.
    expect(rows[0]!.usage).toEqual({ inputTokens: 3, outputTokens: 3, costUsd: null });
    // The model saw the execution context (WithEC) and the replay's result.
    expect(server.requests[0]!.body.messages.map((m) => m.content ?? '').join('\n')).toContain(
      'Execution context block',
    );
    const replayAnswer = server.requests[2]!.body.messages.find((m) => m.role === 'tool');
    expect(replayAnswer).toBeDefined();
  });
});

describe('witnessgym evaluate: attacks on the oracle are never a success', () => {
  it('edits to pom.xml, .mvn/jvm.config, production code and a planted JUnit listener are violations', async () => {
    const listener =
      'src/test/resources/META-INF/services/org.junit.platform.launcher.TestExecutionListener';
    const mainFile = record.bugRelatedFiles[0]!;
    const rows = await scripted('violations', {
      'pom.xml': '<project/>',
      '.mvn/jvm.config': '-javaagent:/tmp/x.jar',
      [listener]: 'attack.PassEverything',
      '{testSources}/attack/PassEverything.java':
        'package attack; public class PassEverything implements org.junit.platform.launcher.TestExecutionListener {}',
      [mainFile]: 'class Gone {}',
      '{testPath}': javaTest('        assertTrue(true);'),
    });
    expect(rows).toHaveLength(1);
    const diagnosis = rows[0]!.diagnosis;
    expect(diagnosis.kind).toBe('Violation');
    if (diagnosis.kind !== 'Violation') return;
    expect(diagnosis.violations.map((v) => [v.file, v.what]).sort()).toEqual(
      [
        ['.mvn/jvm.config', 'build configuration'],
        [listener, 'test runtime configuration'],
        [mainFile, 'production code'],
        ['pom.xml', 'build file'],
      ].sort(),
    );
  });

  it('a test that prints fake Surefire lines and passes is not a witness', async () => {
    const rows = await scripted('fake-surefire', {
      '{testPath}': javaTest(
        '        System.out.println("Tests run: 1, Failures: 1, Errors: 0, Skipped: 0");\n        System.out.println("[ERROR] Tests run: 1, Failures: 1, Errors: 0, Skipped: 0 <<< FAILURE!");\n        System.err.println("BUILD FAILURE");',
      ),
    });
    expect(rows.map((row) => row.diagnosis.kind)).toEqual(['NotReached']);
  });

  it('a test that fails on both versions is a wrong oracle', async () => {
    const rows = await scripted('fails-everywhere', {
      '{testPath}': javaTest('        assertTrue(false);'),
    });
    expect(rows.map((row) => [row.diagnosis.kind, row.paperSuccess])).toEqual([
      ['FailsOnClean', true],
    ]);
  });

  it('a test that fails only in the trace run cannot make its verdict a harness fault', async () => {
    // The trace run is the one whose production code reports to witnessgym.trace.Trace. Throwing a
    // VerifyError there once made the verifier call the attempt a harness fault, and the item
    // unjudged: the exception type is the test's to choose, so it decides nothing.
    const rows = await scripted(
      'verify-error-when-traced',
      {
        '{testPath}': javaTest(`        new org.json.simple.JsonObject().toJson();
        try {
            java.lang.reflect.Field recorded = Class.forName("witnessgym.trace.Trace").getDeclaredField("size");
            recorded.setAccessible(true);
            if (recorded.getInt(null) > 0) throw new VerifyError("only when traced");
        } catch (ReflectiveOperationException notTraced) { }
        assertTrue(false);`),
      },
      ['--no-screen'],
    );
    expect(rows.map((row) => row.diagnosis.kind)).toEqual(['FailsOnClean']);
  });

  it('a test cannot carry state from one run to the next: every run starts afresh', async () => {
    // A marker left by the first run would make it fail once and pass after (or count runs):
    // each run copies the tree afresh, so every run is a first run, on both sides.
    const rows = await scripted('first-run-only', {
      '{testPath}': javaTest(
        '        java.io.File marker = new java.io.File("target/attack-marker");\n        if (marker.createNewFile()) fail("first run");',
      ),
    });
    expect(rows.map((row) => row.diagnosis.kind)).toEqual(['FailsOnClean']);
  });

  it('a test that kills the JVM of the coverage run hides no failure as a harness fault', async () => {
    // Found by reflection, past the static screen: halting when JaCoCo is loaded leaves no
    // coverage data. That is the test's doing, so it is judged, not retried as the harness's.
    const rows = await scripted('halts-coverage-run', {
      '{testPath}': javaTest(
        '        try { ClassLoader.getSystemClassLoader().loadClass("org.jacoco.agent.rt.RT"); } catch (ClassNotFoundException notCovered) { fail("wrong oracle"); }\n        Object runtime = Class.forName("java.lang." + "Runtime").getMethod("getRuntime").invoke(null);\n        runtime.getClass().getMethod("ha" + "lt", int.class).invoke(runtime, 0);',
      ),
    });
    expect(rows.map((row) => row.diagnosis.kind)).toEqual(['FailsOnClean']);
  });

  it('a test that tells the trees apart by their shape, after entering a changed method, is not a witness', async () => {
    // The clean side is the untransformed tree: a member a transformation added tells the sides
    // apart without running the bug. Only running a changed line counts as running the bug.
    const added = record.bugMembers.find((member) => member.cleanLine === null);
    const entered = record.bugMembers.find((member) => member.cleanLine !== null);
    expect(added, 'the case has a member its transformation added').toBeDefined();
    const reversed = [...added!.name].reverse().join('');
    const rows = await scripted(
      'shape',
      {
        '{testPath}':
          javaTest(`        Class<?> owner = Class.forName(${JSON.stringify(entered!.binaryClass)});
        for (java.lang.reflect.Method method : owner.getDeclaredMethods()) {
            if (!method.getName().equals(${JSON.stringify(entered!.name)})) continue;
            Object[] args = new Object[method.getParameterTypes().length];
            for (int i = 0; i < args.length; i++) {
                if (method.getParameterTypes()[i] == java.io.Writer.class) args[i] = new java.io.StringWriter();
            }
            method.setAccessible(true);
            try { method.invoke(java.lang.reflect.Modifier.isStatic(method.getModifiers()) ? null : owner.newInstance(), args); } catch (Exception ignored) { }
        }
        String name = new StringBuilder(${JSON.stringify(reversed)}).reverse().toString();
        for (java.lang.reflect.Method method : owner.getDeclaredMethods()) {
            assertFalse("a member only the transformed code has", method.getName().equals(name));
        }`),
      },
      ['--no-screen'],
    );
    expect(rows.map((row) => row.diagnosis.kind)).toEqual(['BugNotExecuted']);
    expect(rows[0]!.paperSuccess).toBe(true);
  });

  it('a test that reads the source instead of running the bug is not a witness', async () => {
    const patch = await readFile(path.join(bench, record.id, 'bug.patch'), 'utf8');
    const added = diffHunks(patch)
      .flatMap((hunk) =>
        hunk.lines
          .filter((line) => line.kind === 'added')
          .map((line) => [hunk.file, line.text.trim()]),
      )
      .find(([, text]) => text!.length > 10)!;
    const rows = await scripted('reads-source', {
      '{testPath}': javaTest(
        `        String source = new String(java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(${JSON.stringify(added[0])})));\n        assertFalse(source.contains(${JSON.stringify(added[1])}));`,
      ),
    });
    // The screen names the line; without it the run would find no source to read (FailsOnClean).
    expect(rows.map((row) => row.diagnosis)).toEqual([
      {
        kind: 'Violation',
        violations: [expect.objectContaining({ what: 'reads project files', line: 9 })],
      },
    ]);
  });

  it('an agent that never exits is stopped with its whole process group', async () => {
    const run = path.join(work, 'run-sleeper');
    const marker = `witnessgym-sleeper-${process.pid}`;
    await evaluate(run, [
      '--agent',
      'command',
      '--agent-command',
      `sh -c 'sleep 1000 & sleep 1000; : ${marker}'`,
      '--agent-timeout',
      '3',
      '--setting',
      'NoEC',
      '--attempts',
      '1',
    ]);
    expect(rowsOf(run).rows.map((row) => [row.diagnosis.kind, row.agentOutcome.kind])).toEqual([
      ['AgentTimeout', 'Timeout'],
    ]);
    expect(await processesMentioning(marker)).toEqual([]);
  });

  it('from inside the sandbox, git history, the cache, the benchmark and the clean code are out of reach', async () => {
    const cache = cacheLayout(resolveCacheDir());
    const cleanFile = path.join(
      projectCache(cache, record.project).pristine,
      record.bugRelatedFiles[0]!,
    );
    const cleanHash = sha256Text(await readFile(cleanFile, 'utf8'));
    const witnessName = path.basename(record.officialTest.path);
    const probe = [
      'echo commits=$(git rev-list --all | wc -l)',
      'echo reflog=$(git reflog | wc -l)',
      `ls ${cache.root} >/dev/null 2>&1 && echo cache=visible || echo cache=hidden`,
      `ls ${bench} >/dev/null 2>&1 && echo bench=visible || echo bench=hidden`,
      `echo cases=$(find / -name case.json -not -path '/proc/*' 2>/dev/null | wc -l)`,
      `echo witness=$(find / -name ${witnessName} -not -path '/proc/*' 2>/dev/null | wc -l)`,
      `echo clean=$(find / -name ${path.basename(cleanFile)} -not -path '/proc/*' -exec sha256sum {} + 2>/dev/null | grep -c ${cleanHash})`,
      // Debian's Maven ships commons-lang3 and commons-io jars; the cache's repository holds the
      // project's own artifact when a plugin depends on it. Neither is in the sandbox.
      `echo jars=$(find / -name '*.jar' -not -path '/proc/*' -not -path '/usr/lib/jvm/*' 2>/dev/null | wc -l)`,
      'mvn -q -Dtest=NoSuchTest test >/dev/null; echo mvn=$?',
    ].join('; ');
    const run = path.join(work, 'run-probe');
    await evaluate(run, [
      '--agent',
      'command',
      '--agent-command',
      probe,
      '--setting',
      'NoEC',
      '--attempts',
      '1',
    ]);
    const { rows, text } = rowsOf(run);
    const transcript = text(rows[0]!.transcript);
    expect(transcript).toContain('commits=1');
    expect(transcript).toContain('reflog=1');
    expect(transcript).toContain('cache=hidden');
    expect(transcript).toContain('bench=hidden');
    expect(transcript).toContain('cases=0');
    expect(transcript).toContain('witness=0');
    expect(transcript).toContain('clean=0');
    expect(transcript).toContain('jars=0');
    // The sandbox's mvn is the harness's replay: it answers, and the missing class fails.
    expect(transcript).toContain('mvn=1');
    expect(rows[0]!.diagnosis.kind).toBe('NoTest');
  });
});

describe('a sandboxed test run', () => {
  /** The failure message of a probe test (a fixture under test/fixtures/agents/probes) on a side. */
  async function probe(fixture: string, side: 'buggy' | 'clean'): Promise<string> {
    const cache = cacheLayout(resolveCacheDir());
    const caseDir = path.join(bench, record.id);
    const project = await caseProject(record, cache);
    const setup = await isolatedJavaSetup();
    const productionClass = record.bugMembers[0]!.binaryClass.split('$')[0]!;
    const template = await readFile(
      path.join(packageRoot(), 'test/fixtures/agents/probes', fixture),
      'utf8',
    );
    const testClass = `${record.officialTest.class}Probe`;
    const source = {
      file: testSourceFile(project.layout, testClass),
      content: template
        .replaceAll('{testPackage}', testClass.slice(0, testClass.lastIndexOf('.')))
        .replaceAll('{testClass}', testClass.slice(testClass.lastIndexOf('.') + 1))
        .replaceAll('{productionClassPath}', `${productionClass.replaceAll('.', '/')}.class`),
    };
    const prepared = await preparedSide({ caseDir, record, project, cache }, side);
    const compiled = await compileTests(prepared, [source], setup);
    if (compiled.kind !== 'Compiled') throw new Error(JSON.stringify(compiled));
    try {
      const run = await runTestClass(prepared, compiled.classes, testClass, setup);
      if (run.verdict.kind !== 'TestFailed') throw new Error(JSON.stringify(run.verdict));
      return run.verdict.failures[0]!.message;
    } finally {
      await removeTree(compiled.classes);
    }
  }

  it('sees the same on both sides, and no production source or class bytes', async () => {
    // Mount ids, anonymous device numbers (0:N, counted machine-wide, so other sandboxes running
    // meanwhile move them) and the host's temporary names change from run to run, not by side.
    const viewOf = async (side: 'buggy' | 'clean') =>
      (await probe('ViewProbe.java', side))
        .replace(/^(mounts=)?\d+ \d+ (0:\d+ )?/gm, '$1')
        .replace(/witnessgym-sandbox-[a-z]+-[A-Za-z0-9]+/g, 'witnessgym-sandbox-*');
    const buggy = await viewOf('buggy');
    const clean = await viewOf('clean');
    const productionClass = record.bugMembers[0]!.binaryClass.split('$')[0]!;
    expect(buggy).toBe(clean);
    expect(buggy).toContain('classBytes=null null');
    expect(buggy).not.toMatch(/\/project\/src\/main\/java\//);
    expect(buggy).not.toContain(`${productionClass.replaceAll('.', '/')}.class`);
    expect(buggy).toContain('net=[name:lo (lo)]');
    // Nothing of the harness's environment: only the sandbox's own variables.
    expect(buggy).toMatch(
      /env=\{HOME=\/home\/sandbox, JAVA_HOME=[^,]+, LANG=C.UTF-8, PATH=[^,]+, PWD=\/project, TMPDIR=\/tmp, TZ=UTC, USER=sandbox\}/,
    );
  });

  it("reaches its package's package-private production classes, as under Surefire", async () => {
    // json-simple's lexer (Yylex, in both its packages) is package-private.
    expect(await probe('PackageProbe.java', 'buggy')).toMatch(/^access=granted /);
  });

  it('writes where Maven would let it, but cannot change the project or fill the disk', async () => {
    const outcome = await probe('WriteProbe.java', 'buggy');
    expect(outcome).toContain('project=written');
    expect(outcome).toContain('target=written');
    expect(outcome).toContain('sources=refused');
    expect(outcome).toContain('pom=refused');
    expect(outcome).toMatch(/big=stopped at 25\d MiB/);
  });
});
