import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Longest files first, whatever their project, from the seconds each file took in a CI run
 * (`test/durations.json`, refreshed from the `test-timings.json` that `.ci/run` writes). On a
 * fresh clone vitest knows no durations and would run the projects one after the other, leaving
 * a long file to run alone at the end; files not listed took under a second.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const listed = JSON.parse(readFileSync(path.join(root, 'test', 'durations.json'), 'utf8')) as {
      file: string;
      seconds: number;
    }[];
    const seconds = new Map(listed.map((entry) => [entry.file, entry.seconds]));
    const cost = (spec: TestSpecification) => seconds.get(path.relative(root, spec.moduleId)) ?? 0;
    return [...files].sort((a, b) => cost(b) - cost(a));
  }
}
