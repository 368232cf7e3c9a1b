import type { DiffHunk } from '../core/diff-stats.js';
import { EDIT_KINDS, editKind } from '../lang/java/edit-kind.js';

/*
 * What the discriminator sees of a patch, in four families: its shape (lines, hunks, files), the
 * edit kind of each hunk, the artefacts a tool tends to leave (new methods, one-element holders,
 * new classes, comments, forwarding methods), and hashed token n-grams of the changed lines with
 * identifiers and literals normalised, so a project's vocabulary says nothing.
 */

export const FEATURE_FAMILIES = ['shape', 'edit-kinds', 'artefacts', 'ngrams'] as const;
export type FeatureFamily = (typeof FEATURE_FAMILIES)[number];

/** Buckets of the hashed n-grams. */
export const NGRAM_BUCKETS = 1 << 14;

const SHAPE_FEATURES = [
  'added lines (log)',
  'removed lines (log)',
  'changed lines (log)',
  'hunks (log)',
  'files (log)',
  'share of changed lines added',
  'changed lines per hunk (log)',
  'share of hunks only adding',
  'share of hunks only removing',
] as const;

const ARTEFACTS = [
  'method declarations',
  'one-element holders',
  'class declarations',
  'comment lines',
  'forwarding methods',
  'private members',
  'blank lines',
  'final locals',
] as const;

/** Every dense feature's name, family and index; n-gram buckets follow them. */
export const DENSE_FEATURES: readonly { name: string; family: FeatureFamily }[] = [
  ...SHAPE_FEATURES.map((name) => ({ name, family: 'shape' as const })),
  ...EDIT_KINDS.map((kind) => ({ name: `hunks: ${kind}`, family: 'edit-kinds' as const })),
  ...ARTEFACTS.flatMap((name) => [
    { name: `added ${name}`, family: 'artefacts' as const },
    { name: `removed ${name}`, family: 'artefacts' as const },
  ]),
];
export const DIMENSIONS = DENSE_FEATURES.length + NGRAM_BUCKETS;

export function familyOf(index: number): FeatureFamily {
  return index < DENSE_FEATURES.length ? DENSE_FEATURES[index]!.family : 'ngrams';
}

/** A patch's features: dense values in DENSE_FEATURES order, n-grams as bucket → weight. */
export interface PatchFeatures {
  dense: number[];
  ngrams: Map<number, number>;
  /** Each bucket's n-gram text, for naming the weights that matter. */
  ngramText: Map<number, string>;
}

const KEYWORDS = new Set(
  (
    'abstract assert boolean break byte case catch char class const continue default do double ' +
    'else enum extends final finally float for goto if implements import instanceof int ' +
    'interface long native new package private protected public return short static strictfp ' +
    'super switch synchronized this throw throws transient try void volatile while var yield ' +
    'true false null'
  ).split(' '),
);

const TOKEN = new RegExp(
  [
    String.raw`\/\/.*$|\/\*.*?(?:\*\/|$)|^\s*\*.*$`,
    String.raw`"(?:[^"\\]|\\.)*"?`,
    String.raw`'(?:[^'\\]|\\.)*'?`,
    String.raw`\d[\w.]*`,
    String.raw`[A-Za-z_$][\w$]*`,
    String.raw`>>>=|<<=|>>=|>>>|\.\.\.|->|::|\+\+|--|&&|\|\||[=!<>+\-*/%&|^]=|<<|>>`,
    String.raw`\S`,
  ].join('|'),
  'g',
);

/** A line's tokens with identifiers and literals replaced by their class. */
export function normalisedTokens(line: string): string[] {
  return (line.match(TOKEN) ?? []).map((token) => {
    if (/^(\/\/|\/\*|\s*\*)/.test(token)) return 'COMMENT';
    if (token.startsWith('"')) return 'STR';
    if (token.startsWith("'")) return 'CHAR';
    if (/^\d/.test(token)) return 'NUM';
    if (/^[A-Za-z_$]/.test(token) && !KEYWORDS.has(token))
      return /^[A-Z]/.test(token) ? 'Type' : 'id';
    return token;
  });
}

/** FNV-1a, 32 bits: the same bucket on every machine. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    value ^= text.charCodeAt(i);
    value = Math.imul(value, 0x01000193);
  }
  return value >>> 0;
}

const METHOD_DECLARATION =
  /^\s*(?:(?:public|protected|private|static|final|synchronized|abstract|native)\s+)*(?:<[^>]*>\s*)?[\w$.]+(?:<[^()]*>)?(?:\[\])*\s+[\w$]+\s*\([^;]*\)\s*(?:throws\s+[\w$., ]+)?\s*\{?\s*$/;
const NOT_A_DECLARATION = /^\s*(?:return|new|else|throw|if|for|while|switch|catch|case)\b/;
const HOLDER =
  /new\s+[\w$.]+(?:<[^>]*>)?\s*\[\s*1\s*\]|\[\]\s*[\w$]+\s*=\s*\{[^,{}]*\}|[\w$]+\[0\]/;
const CLASS_DECLARATION = /\b(?:class|interface|enum|record)\s+[A-Z][\w$]*/;
const COMMENT_LINE = /^\s*(?:\/\/|\/\*|\*)|\/\/|\/\*/;
const SINGLE_CALL = /^\s*(?:return\s+)?(?:this\.)?[\w$]+\s*\([^;]*\)\s*;\s*$/;

function artefactCounts(lines: readonly string[]): number[] {
  const counts = ARTEFACTS.map(() => 0);
  const add = (name: (typeof ARTEFACTS)[number]) => counts[ARTEFACTS.indexOf(name)]!++;
  lines.forEach((line, index) => {
    const isDeclaration = METHOD_DECLARATION.test(line) && !NOT_A_DECLARATION.test(line);
    if (isDeclaration) add('method declarations');
    if (HOLDER.test(line)) add('one-element holders');
    if (CLASS_DECLARATION.test(line)) add('class declarations');
    if (COMMENT_LINE.test(line)) add('comment lines');
    if (/^\s*private\b/.test(line)) add('private members');
    if (line.trim() === '') add('blank lines');
    if (/^\s*final\s+[\w$.<>[\]]+\s+[\w$]+\s*=/.test(line)) add('final locals');
    // A method whose whole body is one call (with `{` on its line or the next).
    if (isDeclaration) {
      const rest = lines.slice(index + 1, index + 4).map((next) => next.trim());
      const body = rest[0] === '{' ? rest.slice(1) : rest;
      if (body[0] !== undefined && SINGLE_CALL.test(body[0]) && body[1] === '}') {
        add('forwarding methods');
      }
    }
  });
  return counts;
}

export function patchFeatures(hunks: readonly DiffHunk[]): PatchFeatures {
  const lines = hunks.flatMap((hunk) => hunk.lines);
  const added = lines.filter((line) => line.kind === 'added').map((line) => line.text);
  const removed = lines.filter((line) => line.kind === 'removed').map((line) => line.text);
  const changed = added.length + removed.length;
  const log = (value: number) => Math.log1p(value);
  const onlyKind = (kind: 'added' | 'removed') =>
    hunks.filter((hunk) => {
      const kinds = new Set(hunk.lines.filter((l) => l.kind !== 'context').map((l) => l.kind));
      return kinds.size === 1 && kinds.has(kind);
    }).length;
  const hunkCount = Math.max(hunks.length, 1);
  const shape = [
    log(added.length),
    log(removed.length),
    log(changed),
    log(hunks.length),
    log(new Set(hunks.map((hunk) => hunk.file)).size),
    changed === 0 ? 0 : added.length / changed,
    log(changed / hunkCount),
    onlyKind('added') / hunkCount,
    onlyKind('removed') / hunkCount,
  ];
  const kinds = hunks.map(editKind);
  const kindShares = EDIT_KINDS.map(
    (kind) => kinds.filter((found) => found === kind).length / hunkCount,
  );
  const addedArtefacts = artefactCounts(added);
  const removedArtefacts = artefactCounts(removed);
  const artefacts = addedArtefacts.flatMap((count, index) => [
    log(count),
    log(removedArtefacts[index]!),
  ]);

  const ngramText = new Map<number, string>();
  const present = new Set<number>();
  for (const [sign, side] of [
    ['+', added],
    ['-', removed],
  ] as const) {
    for (const line of side) {
      const tokens = [`${sign}^`, ...normalisedTokens(line)];
      for (let n = 1; n <= 3; n++) {
        for (let start = 0; start + n <= tokens.length; start++) {
          const text = `${sign} ${tokens.slice(start, start + n).join(' ')}`;
          const bucket = hash(text) % NGRAM_BUCKETS;
          present.add(bucket);
          if (!ngramText.has(bucket)) ngramText.set(bucket, text);
        }
      }
    }
  }
  // Presence, scaled to unit length: a long patch does not weigh more for having more n-grams.
  const scale = present.size === 0 ? 0 : 1 / Math.sqrt(present.size);
  const ngrams = new Map([...present].map((bucket) => [bucket, scale]));
  return { dense: [...shape, ...kindShares, ...artefacts], ngrams, ngramText };
}
