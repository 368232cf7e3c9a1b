import type { BugTypeSpec } from '../spec.js';

/** A bug-type spec written out for tests, so edits to the spec files move no pin or prompt. */
export const DEMO_SPEC: BugTypeSpec = {
  id: 'logic_guard_inversion',
  name: 'Guard Predicate Inversion',
  category: 'Logic',
  scope: 'intra_method_branch_condition',
  language: 'java',
  description: 'A guard is flipped.',
  structureConstraints: { requiredElements: ['a guard'], forbiddenElements: ['constants'] },
  runtimeEffect: { exceptionType: 'none', typicalFailureSignal: 'assertion failure' },
  triggerConditions: { testShape: 'valid and invalid inputs', inputProperties: 'both kinds' },
  reach: 'method',
  changesSignature: false,
  codeql: null,
  example: { before: 'if (a > 0)', after: 'if (a < 0)' },
};
