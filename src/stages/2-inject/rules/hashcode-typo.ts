import type { Node } from 'web-tree-sitter';
import {
  declaringClass,
  field,
  modifierWords,
  nameOf,
  parameterTypeNames,
} from '../../../lang/java/syntax.js';
import type { ProjectTypes } from '../../../lang/java/type-index.js';
import {
  annotatedOverride,
  isHashCodeOverride,
  methodSignature,
  namedLike,
  slipCanSurvive,
  tradedOverrideCheck,
  typoRenames,
} from './equals-typo.js';
import { plausibility, type CandidateEdit, type Injector } from './types.js';

/** The slips offered: the case slip CodeQL looks for, and a dropped letter. */
const TYPO_NAMES = ['hashcode', 'hasCode'];

/**
 * An int method that reads as a failed attempt at `hashCode()`: a slip of the name, or the right
 * name with parameters.
 */
export function misnamedHashCode(method: Node): boolean {
  if (method.type !== 'method_declaration' || modifierWords(method).includes('static'))
    return false;
  if (field(method, 'type')?.text !== 'int') return false;
  const name = nameOf(method);
  return name === 'hashCode'
    ? parameterTypeNames(method).length > 0
    : namedLike(name, 'hashCode', 'hash');
}

/**
 * Renames `hashCode()` so that it no longer overrides `Object.hashCode`; only where the slip could
 * survive.
 */
function sites(method: Node, _source: string, types: ProjectTypes): CandidateEdit[] {
  if (!isHashCodeOverride(method)) return [];
  const owner = declaringClass(method);
  if (!owner || owner.type === 'interface_declaration') return [];
  if (!slipCanSurvive(method, owner, types)) return [];
  return typoRenames(method, owner, TYPO_NAMES).map(({ typo, edits }) => ({
    description: `hashCode() → ${typo}(): no longer overrides Object.hashCode`,
    edits,
    plausibility: plausibility(
      typo === 'hashcode' ? 0 : 1,
      typo === 'hashcode' ? 'a case slip in the name' : 'a misspelt name',
    ),
  }));
}

export const hashCodeTypoInjector: Injector = {
  kind: 'injector',
  typeId: 'api_hashcode_typo',
  sites,
  check: tradedOverrideCheck(
    isHashCodeOverride,
    misnamedHashCode,
    (path, typo) =>
      `${path} no longer overrides hashCode(): it declares int ${methodSignature(typo)} instead`,
    'no class trades its hashCode(), without @Override, for a misnamed int method',
    (override) => !annotatedOverride(override),
  ),
};
