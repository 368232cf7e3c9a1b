import { mkdir, writeFile } from 'node:fs/promises';
import { projectLayout } from '../../toolchains/layout.js';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../../core/fs.js';
import { contextBucket } from './trace.js';
import { parameterTypes, SourceIndex } from './locations.js';

describe('method locations', () => {
  it('writes descriptor parameters as Java types', () => {
    expect(
      parameterTypes(
        '(Ljava/io/Reader;Lorg/json/simple/parser/ContainerFactory;)Ljava/lang/Object;',
      ),
    ).toEqual(['java.io.Reader', 'org.json.simple.parser.ContainerFactory']);
    expect(parameterTypes('(I[[JLa/B$C;Z)V')).toEqual(['int', 'long[][]', 'a.B.C', 'boolean']);
    expect(parameterTypes('()V')).toEqual([]);
  });

  it('finds sources in src/main and in generated sources, with or without a tool directory', async () => {
    const root = await makeTempDir('sources');
    const files = {
      'src/main/java/a/B.java': '',
      'target/generated-sources/c/D.java': '',
      'target/generated-sources/annotations/e/F.java': '',
    };
    for (const file of Object.keys(files)) {
      await mkdir(path.dirname(path.join(root, file)), { recursive: true });
      await writeFile(path.join(root, file), '');
    }
    const index = await SourceIndex.build(root, projectLayout({}));
    expect(index.fileOf('a/B$Inner', 'B.java')).toBe('src/main/java/a/B.java');
    expect(index.fileOf('c/D', 'D.java')).toBe('target/generated-sources/c/D.java');
    expect(index.fileOf('e/F', 'F.java')).toBe('target/generated-sources/annotations/e/F.java');
    expect(index.fileOf('x/Y', 'Y.java')).toBeNull();
  });

  it('buckets context lengths as the paper does, plus none and beyond', () => {
    expect([0, 1, 40, 41, 70, 71, 120, 121, 150, 151].map(contextBucket)).toEqual([
      'none',
      'short',
      'short',
      'mid-short',
      'mid-short',
      'mid-long',
      'mid-long',
      'long',
      'long',
      'beyond',
    ]);
  });
});
