import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { packageRoot } from '../src/core/package-root.js';
import type { TransformSite } from '../src/stages/3-transform/operators/types.js';
import { analyseSource, type SourceModel } from '../src/toolchains/jvm/source-model.js';

/* The operators' fixture files (test/fixtures/transform-operators/shapes) and sites in them. */

export interface Shape {
  source: string;
  model: SourceModel;
}

/** A fixture file and javac's view of it. */
export async function loadShape(name: string): Promise<Shape> {
  const file = path.join(packageRoot(), 'test', 'fixtures', 'transform-operators', 'shapes', name);
  const text = await readFile(file, 'utf8');
  const outcome = await analyseSource(
    { file, classpath: [], release: '8', ranges: [[0, text.length]] },
    cacheLayout(resolveCacheDir()),
  );
  if (outcome.kind !== 'Analysed') throw new Error(outcome.reason);
  return { source: text, model: outcome.model };
}

/** The site whose bug is the text `text`, which the shape must hold once. */
export function shapeSite(shape: Shape, text: string): TransformSite {
  const start = shape.source.indexOf(text);
  if (start < 0 || shape.source.indexOf(text, start + 1) >= 0)
    throw new Error(`'${text}' is not once in the file`);
  return { source: shape.source, focus: { start, end: start + text.length }, model: shape.model };
}
