import type { AttemptRow } from './records.js';

/** An attempt row for the specs of the store and what reads it: a plain one, with `changes`. */
export function attemptRow(
  changes: Partial<AttemptRow> & Pick<AttemptRow, 'diagnosis'>,
): AttemptRow {
  return {
    case: {
      caseId: 'commons-csv@1.9.0-0123456789abcdef',
      project: 'commons-csv',
      bugType: { id: 't', name: 'T', category: 'Logic', specHash: 'h' },
      bucket: 'short',
      depth: 1,
    },
    agent: 'witness',
    agentSpec: 'spec',
    setting: 'NoEC',
    attempt: 1,
    paperSuccess: changes.diagnosis.kind === 'Success',
    coverage: null,
    agentOutcome: { kind: 'Exited', code: 0, signal: null },
    agentMs: 1,
    verifyMs: 2,
    usage: null,
    prompt: 'def',
    transcript: 'abc',
    testFiles: [],
    feedback: '',
    tools: {},
    finishedAt: new Date(0).toISOString(),
    ...changes,
  };
}
