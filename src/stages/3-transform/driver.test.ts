import { describe, expect, it } from 'vitest';
import { silent } from '../../events/types.js';
import type { ProjectRef } from '../../project/project.js';
import { DEFAULT_TESTS } from '../../project/recipe.js';
import { DEFAULT_BUILD } from '../../toolchains/build-settings.js';
import { projectLayout } from '../../toolchains/layout.js';
import { loadTransformSpecs, selectTransforms } from './spec.js';
import { stepSources, type TransformStageOptions } from './driver.js';

const options: TransformStageOptions = {
  from: '/nonexistent',
  transforms: 't_call_stack_deepen_v1',
  out: '/nonexistent/out',
  engine: 'deterministic',
  maven: false,
  candidates: 4,
  otherClasses: 5,
  agentTimeout: 60,
};

async function sourcesFor(transforms: string, overrides: Partial<TransformStageOptions>) {
  const all = await loadTransformSpecs();
  return stepSources(selectTransforms(all, transforms), all, { ...options, ...overrides });
}

describe('stepSources', () => {
  it('turns down agent flags without the agent engine, and the agent engine without an agent', async () => {
    await expect(sourcesFor('t_call_stack_deepen_v1', { agent: 'command' })).rejects.toThrow(
      '--agent applies to --engine agent only',
    );
    await expect(sourcesFor('t_call_stack_deepen_v1', { engine: 'agent' })).rejects.toThrow(
      /^--engine agent needs --agent </,
    );
  });

  it("keys a step by its engine: the operator's code, or the agent and its prompts", async () => {
    const deterministic = await sourcesFor('t_nested_data_access_v1', {});
    const agent = await sourcesFor('t_nested_data_access_v1', {
      engine: 'agent',
      agent: 'command',
      agentCommand: 'true',
    });
    const project: ProjectRef = {
      label: 'demo@1.0',
      base: { name: 'demo', version: '1.0', commit: 'c0ffee', recipeHash: 'r' },
      root: '/nonexistent/root',
      build: DEFAULT_BUILD,
      layout: projectLayout({}),
      tests: DEFAULT_TESTS,
    };
    const [code] = deterministic({ project, events: silent, out: options.out });
    expect(code!.engine).toBe('deterministic');
    const sources = agent({ project, events: silent, out: options.out });
    expect(sources.map((source) => source.id)).toEqual(['t_nested_data_access_v1']);
    expect(sources[0]!.engine).toMatch(/^agent \{"command":"true","name":"command"\} prompts 1 /);
  });
});
