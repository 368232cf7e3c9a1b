import { describe, expect, it } from 'vitest';
import { createAgentAdapter } from '../../agents/adapters/index.js';
import { agentTaskId, type AgentTaskIdParts } from './inject-agent.js';

const openai = (model: string) =>
  createAgentAdapter({ agent: 'openai', model, baseUrl: 'http://localhost:8000/v1' }, {}).spec;

const parts: AgentTaskIdParts = {
  stateId: '0123456789abcdef',
  typeId: 'api_identical_value_comparison',
  adapter: openai('model-a'),
  attempts: 3,
  specHash: '00000000aaaaaaaa',
  seed: 1,
  task: 0,
};

describe('agentTaskId', () => {
  it('is the same for equal adapter specs and the same payload', () => {
    expect(agentTaskId({ ...parts, adapter: openai('model-a') })).toBe(agentTaskId(parts));
    expect(agentTaskId(parts)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('differs for adapters that differ only in their model', () => {
    expect(agentTaskId({ ...parts, adapter: openai('model-b') })).not.toBe(agentTaskId(parts));
    const claude = (model: string) => createAgentAdapter({ agent: 'claude-code', model }, {}).spec;
    expect(agentTaskId({ ...parts, adapter: claude('opus') })).not.toBe(
      agentTaskId({ ...parts, adapter: claude('sonnet') }),
    );
  });

  it('differs with any other part: state, type, spec, attempts, seed, task index', () => {
    const others: Partial<AgentTaskIdParts>[] = [
      { stateId: 'fedcba9876543210' },
      { typeId: 'logic_predicate_inversion_in_guard' },
      { specHash: '00000000bbbbbbbb' },
      { attempts: 1 },
      { seed: 2 },
      { task: 1 },
    ];
    const ids = new Set(
      [parts, ...others.map((other) => ({ ...parts, ...other }))].map(agentTaskId),
    );
    expect(ids.size).toBe(others.length + 1);
  });
});
