import { UserError } from '../../../core/errors.js';
import type { TransformSpec } from '../spec.js';
import { cachedValueAccess } from './cached-value.js';
import { callSiteRerouting } from './call-reroute.js';
import { extractApplySplit } from './extract-apply.js';
import { helperCallInsertion } from './helper-call.js';
import { pipelineStageSplit } from './pipeline-split.js';
import { localStateBundling } from './local-state-bundle.js';
import { parameterBundling } from './parameter-bundle.js';
import { nestedDataAccess } from './nested-access.js';
import { intermediateStatePassing } from './state-holder.js';
import { rareInputPathConditioning } from './rare-gate.js';
import type { TransformOperator } from './types.js';

/** The operators with a deterministic implementation so far; the other specs wait for theirs. */
const OPERATORS: readonly TransformOperator[] = [
  helperCallInsertion,
  callSiteRerouting,
  extractApplySplit,
  pipelineStageSplit,
  parameterBundling,
  localStateBundling,
  intermediateStatePassing,
  cachedValueAccess,
  nestedDataAccess,
  rareInputPathConditioning,
];

/**
 * The operators whose rewrite keeps behaviour: all but the rare-input gate (it makes the code
 * behave differently on the inputs it gates) and any that needs a profile of a bug to place.
 */
export function behaviourPreservingOperators(): readonly TransformOperator[] {
  return OPERATORS.filter(
    (operator) => operator !== rareInputPathConditioning && operator.probe === undefined,
  );
}

export function implementedOperators(): readonly string[] {
  return OPERATORS.map((operator) => operator.id);
}

/** The code of an operator spec, or a one-line error naming the ones that have code. */
export function operatorFor(spec: TransformSpec): TransformOperator {
  const operator = OPERATORS.find((candidate) => candidate.id === spec.id);
  if (!operator) {
    throw new UserError(
      `transform ${spec.id} (${spec.operator}) has a spec but no implementation yet; implemented: ${implementedOperators().join(', ')}`,
    );
  }
  return operator;
}
