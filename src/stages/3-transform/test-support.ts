import { baseState, withPatch, patchOf, type ProjectState } from '../../project/state.js';
import type { SourceModel } from '../../toolchains/jvm/source-model.js';
import type { InjectionRecord } from '../2-inject/records.js';
import type { StepSite } from './candidates.js';
import { locateAnchor, type BugAnchor } from './focus.js';

export const COUNTER = 'src/main/java/p/Counter.java';
export const COUNTER_TEST = 'src/test/java/p/CounterTest.java';

export const CLEAN_COUNTER = `package p;

public class Counter {
    private int count;

    public void add(int step) {
        if (step > 0) {
            count += step;
        }
    }
}
`;

export const BUGGY_COUNTER = CLEAN_COUNTER.replace('step > 0', 'step < 0');

export const BUG_ANCHOR: BugAnchor = { file: COUNTER, lines: ['if (step < 0) {'] };

export function buggyState(): ProjectState {
  const base = baseState({ name: 'demo', version: '1.0', commit: 'c0ffee', recipeHash: 'r' });
  return withPatch(base, patchOf([{ file: COUNTER, before: CLEAN_COUNTER, after: BUGGY_COUNTER }]));
}

/** The fields of an injection a step reads; the rest of the record plays no part here. */
const INJECTION = {
  id: 'inj0',
  state: buggyState(),
  bugType: { id: 'logic_predicate_inversion_in_guard', name: 'Guard Predicate Inversion' },
  witness: { testClass: 'p.CounterTest', contextSize: 1, bucket: 'short' },
} as unknown as InjectionRecord;

/** The first step on the buggy Counter, javac's view standing in as an empty model. */
export function counterSite(overrides: Partial<StepSite> = {}): StepSite {
  return {
    injection: INJECTION,
    context: undefined,
    step: 0,
    sequence: ['t_call_stack_deepen_v1'],
    state: buggyState(),
    anchor: BUG_ANCHOR,
    source: BUGGY_COUNTER,
    focus: locateAnchor(BUGGY_COUNTER, BUG_ANCHOR)!,
    added: [],
    model: async () => ({ kind: 'Analysed', model: {} as SourceModel }),
    release: '8',
    profile: async () => 'no test here runs a probe',
    ...overrides,
  };
}
