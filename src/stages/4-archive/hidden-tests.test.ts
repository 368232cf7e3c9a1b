import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../../core/fs.js';
import { projectLayout } from '../../toolchains/layout.js';
import { DEFAULT_BUILD } from '../../toolchains/build-settings.js';
import {
  coWitnessesOthersUse,
  resourcesOnlyHiddenTestsName,
  stringLiterals,
} from './hidden-tests.js';

async function tree(files: Record<string, string>): Promise<string> {
  const root = await makeTempDir('hidden-tests');
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
  return root;
}

const layout = projectLayout(DEFAULT_BUILD);
const tests = 'src/test/java/p';
const resources = 'src/test/resources/p';

describe('resourcesOnlyHiddenTestsName', () => {
  it('hides a fixture only the witness names, by path or file name, and keeps shared ones', async () => {
    const root = await tree({
      [`${tests}/WitnessTest.java`]:
        'class WitnessTest { String a = "p/CSV-248/csvRecord.bin"; String b = "shared.csv"; String c = "own.txt"; }',
      [`${tests}/OtherTest.java`]: 'class OtherTest { String s = "/p/shared.csv"; }',
      [`${resources}/CSV-248/csvRecord.bin`]: 'x',
      [`${resources}/shared.csv`]: 'x',
      [`${resources}/own.txt`]: 'x',
      [`${resources}/unnamed.txt`]: 'x',
    });
    expect(await resourcesOnlyHiddenTestsName(root, layout, [`${tests}/WitnessTest.java`])).toEqual(
      [`${resources}/CSV-248/csvRecord.bin`, `${resources}/own.txt`],
    );
  });

  it('counts a co-witness as hidden: a fixture it shares with the witness alone goes too', async () => {
    const root = await tree({
      [`${tests}/WitnessTest.java`]: 'class WitnessTest { String a = "data.csv"; }',
      [`${tests}/CoTest.java`]: 'class CoTest { String a = "data.csv"; }',
      [`${resources}/data.csv`]: 'x',
    });
    expect(await resourcesOnlyHiddenTestsName(root, layout, [`${tests}/WitnessTest.java`])).toEqual(
      [],
    );
    expect(
      await resourcesOnlyHiddenTestsName(root, layout, [
        `${tests}/WitnessTest.java`,
        `${tests}/CoTest.java`,
      ]),
    ).toEqual([`${resources}/data.csv`]);
  });
});

describe('coWitnessesOthersUse', () => {
  it('names a co-witness another remaining test source uses', async () => {
    const root = await tree({
      [`${tests}/WitnessTest.java`]: 'class WitnessTest {}',
      [`${tests}/CoTest.java`]: 'class CoTest { static int X = 1; }',
      [`${tests}/LoneTest.java`]: 'class LoneTest {}',
      [`${tests}/UserTest.java`]: 'class UserTest { int y = CoTest.X; }',
    });
    const hidden = [`${tests}/WitnessTest.java`, `${tests}/CoTest.java`, `${tests}/LoneTest.java`];
    expect(
      await coWitnessesOthersUse(root, layout, hidden, [
        `${tests}/CoTest.java`,
        `${tests}/LoneTest.java`,
      ]),
    ).toEqual([{ source: `${tests}/CoTest.java`, usedBy: `${tests}/UserTest.java` }]);
  });
});

describe('stringLiterals', () => {
  it('reads escaped quotes and backslashes', () => {
    expect(stringLiterals('f("a\\"b", "c\\\\d")')).toEqual(['a"b', 'c\\d']);
  });
});
