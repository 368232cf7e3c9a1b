import { describe, expect, it } from 'vitest';
import type { BuildSummary } from '../../pipeline/driver.js';
import { formatBuildSummary } from './build.js';

describe('the build summary', () => {
  it('lists every short cell with why, and the patch evolution by depth', () => {
    const summary: BuildSummary = {
      out: '/b',
      plan: 'smoke',
      seed: 1,
      wanted: 3,
      archived: 2,
      cells: [
        {
          typeId: 'api_equals_typo',
          bucket: 'short',
          depth: 1,
          wanted: 1,
          archived: 1,
          reasons: [],
        },
        {
          typeId: 'api_hashcode_typo',
          bucket: 'short',
          depth: 1,
          wanted: 2,
          archived: 1,
          reasons: ['p@1: 1 short bugs of 3 asked for (4 sites, 4 tried, sites-exhausted)'],
        },
      ],
      stages: {
        inject: { tried: 10, accepted: 4 },
        transform: { tried: 3, kept: 2, shortAt: { 'step 1 t_call_stack_deepen_v1': 1 } },
        suite: {
          api_hashcode_typo: {
            checked: 3,
            givenAway: 2,
            hidden: 0,
            unfinished: 0,
            jvmMs: 4_200,
            mavenMs: 61_000,
          },
        },
      },
      msPerCase: 30_000,
      evolution: [
        {
          depth: 1,
          runs: 2,
          finalLines: 11,
          hunks: 1,
          files: 1,
          lineAccumulation: 1,
          firstStepRetention: 1,
          firstStepSimilarity: 1,
          earlySteps: null,
          lateSteps: null,
        },
      ],
      operators: [['t_call_stack_deepen_v1', 2]],
      durationMs: 60_000,
    };
    const text = formatBuildSummary(summary);
    expect(text).toMatch(/2 of 3 cases in 60\.0 s \(30\.0 s per case this run\)/);
    expect(text).toMatch(
      /1 of 2 cells short:\n {2}api_hashcode_typo\/short\/1: 1 of 2; p@1: 1 short bugs/,
    );
    expect(text).toMatch(/transform: 2 of 3 bugs tried in cells kept \(67%\); short at step 1/);
    expect(text).toMatch(/\n {4}1 {5}2 {3}11\.0/);
    expect(text).toMatch(
      /api_hashcode_typo: 3 checked, 2 refused as given away; 4\.2 s warm JVM, 61\.0 s Maven/,
    );
  });
});
