import { diffHunks, patchSize } from '../core/diff-stats.js';
import { seededRandom, shuffled } from '../core/random.js';
import type { RealismPatch } from './patches.js';

/*
 * The discriminator's controls. Positive: the paper's artefact-bearing patches (Appendix H.1) —
 * a redundant wrapper method, a one-element holder array and a comment pointing at the bug
 * planted in a patch — against the same patches as they were; a discriminator that cannot tell
 * those apart would say nothing by failing to tell injected from real. Negative: Defects4J
 * patches against Defects4J patches under random labels, which nothing can tell apart.
 */

const COMMENTS = [
  '// the check below is deliberately skipped here',
  '// NOTE: this branch now ignores the last element on purpose',
  '// changed: the guard is no longer applied',
  '// intentionally uses the previous value',
];
const HOLDER_TYPES = ['int', 'Object', 'boolean', 'String', 'long'];
const NAMES = ['value', 'result', 'state', 'current', 'entry', 'count'];

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)]!;
}

/** Every `@@` header recounted from the lines below it (planting changes the counts). */
function recountHeaders(lines: string[]): string[] {
  return lines.map((line, index) => {
    const header = /^@@ -(\d+),\d+ \+(\d+),\d+ @@$/.exec(line);
    if (!header) return line;
    let oldCount = 0;
    let newCount = 0;
    for (let next = index + 1; next < lines.length; next++) {
      const body = lines[next]!;
      if (body.startsWith('@@') || body.startsWith('--- ')) break;
      if (body[0] !== '+') oldCount++;
      if (body[0] !== '-') newCount++;
    }
    return `@@ -${header[1]},${oldCount} +${header[2]},${newCount} @@`;
  });
}

/**
 * The patch with the three artefacts planted in its last hunk: the comment and the holder beside
 * its last changed line, the wrapper after the hunk's last line. Names are drawn from `random`.
 */
export function plantArtefacts(patch: RealismPatch, random: () => number): RealismPatch {
  const lines = patch.text.replace(/\n$/, '').split('\n');
  const lastChange = lines.findLastIndex((line) => /^[+-](?![+-]{2} )/.test(line));
  const indent = /^[+-](\s*)/.exec(lines[lastChange] ?? '')?.[1] ?? '        ';
  const type = pick(HOLDER_TYPES, random);
  const name = pick(NAMES, random);
  const wrapped = pick(
    NAMES.filter((other) => other !== name),
    random,
  );
  const capital = (word: string) => word[0]!.toUpperCase() + word.slice(1);
  const memberIndent = indent.length >= 8 ? indent.slice(4) : indent;
  const planted = [
    ...lines.slice(0, lastChange),
    `+${indent}${pick(COMMENTS, random)}`,
    lines[lastChange]!,
    `+${indent}final ${type}[] ${name}Holder = new ${type}[1];`,
    ...lines.slice(lastChange + 1),
    '+',
    `+${memberIndent}private ${type} compute${capital(name)}(${type} ${wrapped}) {`,
    `+${memberIndent}    return ${wrapped}${capital(name)}(${wrapped});`,
    `+${memberIndent}}`,
  ];
  const text = `${recountHeaders(planted).join('\n')}\n`;
  const hunks = diffHunks(text);
  return { ...patch, key: `${patch.key}+planted`, text, hunks, size: patchSize(hunks) };
}

/** A patch of a control, with its label and where it belongs. */
export interface ControlItem {
  patch: RealismPatch;
  label: 0 | 1;
  /** Cross-validation group. */
  group: string;
  /** Bootstrap cluster. */
  cluster: string;
}

/** Patches a control is made from, at least this many so its interval can be narrow. */
export const POSITIVE_CONTROL_PATCHES = 200;

/**
 * The positive control's items: every injected patch, and Defects4J patches drawn to make
 * POSITIVE_CONTROL_PATCHES, each planted (label 1) and as it was (label 0), the two in one group
 * and one cluster.
 */
export function positiveControl(
  injected: readonly RealismPatch[],
  real: readonly RealismPatch[],
  seed: number,
): ControlItem[] {
  const random = seededRandom(seed);
  const topUp = Math.max(0, POSITIVE_CONTROL_PATCHES - injected.length);
  const sample = [...injected, ...shuffled(real, random).slice(0, topUp)];
  return sample.flatMap((patch) => [
    {
      patch: plantArtefacts(patch, random),
      label: 1 as const,
      group: patch.cluster,
      cluster: patch.cluster,
    },
    { patch, label: 0 as const, group: patch.cluster, cluster: patch.cluster },
  ]);
}

/** Random labellings the negative control averages over (see negativeControl). */
export const NEGATIVE_CONTROL_LABELLINGS = 10;

/**
 * The negative control's items: every Defects4J patch, half labelled 1 at random, grouped by
 * project; once per labelling. One labelling of 864 patches gives a 90 % interval about ±0.033
 * wide around an AUC that itself strays ±0.02 from 0.5 by chance alone, which would fail the
 * bounds for one seed in three; averaging labellings removes that chance part and keeps what a
 * leak would add to every one of them.
 */
export function negativeControl(
  real: readonly RealismPatch[],
  seed: number,
  labellings: number = NEGATIVE_CONTROL_LABELLINGS,
): ControlItem[][] {
  const random = seededRandom(seed);
  return Array.from({ length: labellings }, () => {
    const order = shuffled(
      real.map((_, index) => index),
      random,
    );
    const positive = new Set(order.slice(0, Math.floor(real.length / 2)));
    return real.map((patch, index) => ({
      patch,
      label: positive.has(index) ? (1 as const) : (0 as const),
      group: `project:${patch.project}`,
      cluster: patch.cluster,
    }));
  });
}
