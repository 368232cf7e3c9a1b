import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { makeTempDir, removeTree } from '../src/core/fs.js';
import { packageRoot } from '../src/core/package-root.js';
import { runProcess } from '../src/core/process.js';
import { findRecipe } from '../src/project/recipe.js';
import { prepareProjectRuntime, type ProjectRuntime } from '../src/toolchains/jvm/setup.js';
import {
  analyseSource,
  type SourceModel,
  type SourceModelRequest,
} from '../src/toolchains/jvm/source-model.js';
import { editedCopy, fetchCorpus, processesWithEnvironment } from './helpers.js';

/* The compiler's view of a real source file: the types a rewrite would have to write. */

const cache = cacheLayout(resolveCacheDir());
const JSON_ARRAY = 'src/main/java/org/json/simple/JsonArray.java';
let pristine: string;
let runtime: ProjectRuntime;

beforeAll(async () => {
  pristine = await fetchCorpus('json-simple');
  runtime = await prepareProjectRuntime(pristine, (await findRecipe('json-simple'))!.build, cache);
});

async function analysed(
  root: string,
  ranges?: SourceModelRequest['ranges'],
): Promise<{ model: SourceModel; text: string }> {
  const file = path.join(root, JSON_ARRAY);
  const text = await readFile(file, 'utf8');
  const outcome = await analyseSource(
    {
      file,
      classpath: [runtime.classes, ...runtime.classpath],
      release: runtime.release,
      ranges: ranges ?? [[0, text.length]],
    },
    cache,
  );
  if (outcome.kind !== 'Analysed') throw new Error(outcome.reason);
  return { model: outcome.model, text };
}

describe('source model', () => {
  it('gives declarations and expression types as the file spells them', async () => {
    const { model, text } = await analysed(pristine);
    expect(model.errors).toEqual([]);
    expect(model.types.map((type) => type.qualifiedName)).toEqual(['org.json.simple.JsonArray']);

    const getEnum = model.methods.find((method) => method.key === 'getEnum(int)')!;
    expect(getEnum).toMatchObject({
      returnType: 'T',
      typeParameters: ['T'],
      parameters: [{ name: 'index', type: 'int' }],
      thrown: ['ClassNotFoundException'],
    });
    const local = (name: string) =>
      model.locals.find((entry) => entry.name === name && entry.method === 'getEnum(int)');
    expect(local('returnType')).toMatchObject({ type: 'Class<T>', final: true });
    expect(local('splitValues')?.type).toBe('String[]');
    // Imported, so simple; BigDecimal is imported too.
    expect(model.methods.find((method) => method.key === 'getBigDecimal(int)')?.returnType).toBe(
      'BigDecimal',
    );

    const typeOf = (source: string) =>
      model.expressions.find((entry) => text.slice(entry.start, entry.end) === source)?.type;
    expect(typeOf('numberOfValues - 1')).toBe('int');
    expect(typeOf('element.split("\\\\.")')).toBe('String[]');
    expect(typeOf('Enum.valueOf(returnType, enumName.toString())')).toBe('T');
    const call = model.expressions.find(
      (entry) => text.slice(entry.start, entry.end) === 'this.getString(index)',
    );
    expect(call?.calls).toMatchObject({ name: 'getString', inThisFile: true });
    expect(
      model.expressions.find(
        (entry) => text.slice(entry.start, entry.end) === 'returnTypeName.toString()',
      )?.calls,
    ).toMatchObject({ declaringType: 'java.lang.StringBuilder', inThisFile: false });
  });

  it('types only the expressions inside the ranges asked for', async () => {
    const text = await readFile(path.join(pristine, JSON_ARRAY), 'utf8');
    const start = text.indexOf('numberOfValues = splitValues.length;');
    const { model } = await analysed(pristine, [[start, start + 40]]);
    expect(model.expressions.length).toBeGreaterThan(0);
    expect(
      model.expressions.every((entry) => entry.start >= start && entry.end <= start + 40),
    ).toBe(true);
    // Declarations are always file-wide.
    expect(model.methods.length).toBeGreaterThan(15);
  });

  it("spells a member type of the file's own class by its simple name, as a maintainer would", async () => {
    // What a bundling step adds: a nested class, then a local of its type elsewhere in the class.
    const copy = await editedCopy(pristine, [
      {
        file: JSON_ARRAY,
        from: 'numberOfValues = splitValues.length;',
        to: 'numberOfValues = splitValues.length;\n\t\tfinal SplitState[] holder = { new SplitState() };',
      },
      {
        file: JSON_ARRAY,
        from: 'public class JsonArray extends ArrayList<Object> implements Jsonable{',
        to: 'public class JsonArray extends ArrayList<Object> implements Jsonable{\n\tprivate static final class SplitState {\n\t\tint count;\n\t}',
      },
    ]);
    const { model, text } = await analysed(copy);
    expect(model.errors).toEqual([]);
    expect(model.locals.find((entry) => entry.name === 'holder')?.type).toBe('SplitState[]');
    expect(
      model.expressions.find((entry) => text.slice(entry.start, entry.end) === 'new SplitState()')
        ?.type,
    ).toBe('SplitState');
  });

  it("reports a rewrite that does not type-check, with javac's own line", async () => {
    const copy = await editedCopy(pristine, [
      {
        file: JSON_ARRAY,
        from: 'numberOfValues = splitValues.length;',
        to: 'numberOfValues = splitValues;',
      },
    ]);
    const { model } = await analysed(copy);
    expect(model.errors).toHaveLength(1);
    expect(model.errors[0]!.message).toMatch(
      /incompatible types: java.lang.String\[\] cannot be converted to int/,
    );
    expect(model.errors[0]!.line).toBeGreaterThan(180);
  });
});

describe('the analysis JVM', () => {
  it('answers analyses one after another in one warm JVM, and does not outlive its process', async () => {
    const dir = await makeTempDir('analysis-jvm');
    const marker = `WITNESSGYM_TEST_ANALYSIS=${path.basename(dir)}`;
    const script = path.join(dir, 'analyse.mjs');
    const module = (file: string) =>
      JSON.stringify(pathToFileURL(path.join(packageRoot(), 'dist', 'src', file)).href);
    await writeFile(
      script,
      `import { readdir, readFile } from 'node:fs/promises';
import { analyseSource } from ${module('toolchains/jvm/source-model.js')};
import { cacheLayout } from ${module('core/cache.js')};
const request = JSON.parse(process.argv[2]);
const cache = cacheLayout(process.argv[3]);
const jvms = async () => {
  const found = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const environ = await readFile('/proc/' + entry + '/environ', 'utf8').catch(() => '');
    if (environ.split('\\0').includes(${JSON.stringify(marker)})) found.push(Number(entry));
  }
  return found;
};
const seen = [];
for (let i = 0; i < 3; i++) {
  const outcome = await analyseSource(request, cache);
  if (outcome.kind !== 'Analysed') throw new Error(outcome.reason);
  seen.push(await jvms());
}
console.log(JSON.stringify(seen));
`,
    );
    const file = path.join(pristine, JSON_ARRAY);
    const text = await readFile(file, 'utf8');
    const request = {
      file,
      classpath: [runtime.classes, ...runtime.classpath],
      release: runtime.release,
      ranges: [[0, text.length]],
    };
    const [name, value] = marker.split('=') as [string, string];
    const run = await runProcess(process.execPath, [script, JSON.stringify(request), cache.root], {
      env: { ...process.env, [name]: value },
      timeoutMs: 120_000,
    });
    // Ends by itself: the idle JVM does not hold the process.
    expect(run.timedOut).toBe(false);
    expect(run.exitCode, run.stderr).toBe(0);
    const seen = JSON.parse(run.stdout) as number[][];
    expect(seen[0]).toHaveLength(1);
    expect(seen).toEqual([seen[0], seen[0], seen[0]]);
    // And nothing of it is left.
    expect(await processesWithEnvironment(marker)).toEqual([]);
    await removeTree(dir);
  });
});
