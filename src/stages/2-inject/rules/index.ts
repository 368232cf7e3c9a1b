import { UserError } from '../../../core/errors.js';
import { collectionElementNullInjector } from './collection-element-null.js';
import { collectionMisrouteInjector } from './collection-misroute.js';
import { equalsTypoInjector } from './equals-typo.js';
import { guardInversionInjector } from './guard-inversion.js';
import { hashCodeTypoInjector } from './hashcode-typo.js';
import { hashedWithoutHashCodeInjector } from './hashed-without-hashcode.js';
import { identicalComparisonInjector } from './identical-comparison.js';
import { inconsistentEqualsHashCodeInjector } from './inconsistent-equals-hashcode.js';
import { nullGuardRemovedInjector } from './null-guard-removed.js';
import { skippedCounterInjector } from './skipped-counter.js';
import type { Injector } from './types.js';

/** Every bug type's rules, in the order they are listed. */
export const INJECTORS: readonly Injector[] = [
  identicalComparisonInjector,
  equalsTypoInjector,
  hashCodeTypoInjector,
  hashedWithoutHashCodeInjector,
  inconsistentEqualsHashCodeInjector,
  nullGuardRemovedInjector,
  collectionElementNullInjector,
  guardInversionInjector,
  skippedCounterInjector,
  collectionMisrouteInjector,
];

/** The rules engine's code for a bug type; every spec needs one. */
export function injectorFor(typeId: string): Injector {
  const injector = INJECTORS.find((candidate) => candidate.typeId === typeId);
  if (!injector) {
    throw new UserError(
      `bug type '${typeId}' has a spec but no rewrite rules: add an injector in src/stages/2-inject/rules/`,
    );
  }
  return injector;
}
