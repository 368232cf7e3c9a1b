import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileChange } from '../../core/file-change.js';
import { sha256Text } from '../../core/fs.js';
import { applyEdits, type TextEdit } from '../../lang/java/syntax.js';
import { ProjectTypes } from '../../lang/java/type-index.js';
import { pristineState, type ProjectRef } from '../../project/project.js';
import type { ProjectState } from '../../project/state.js';
import type { ExecutionContextRecord } from '../1-trace/trace.js';
import type { EngineRef, InjectionRecord, InjectSummary, TypeSummary } from './records.js';
import { injectorFor } from './rules/index.js';
import { rewritesIn } from './rules/rewrites.js';
import type { Plausibility } from './rules/types.js';
import {
  announceType,
  bugTypeRef,
  recordOutcome,
  typeRandom,
  typeSummary,
  withValidationSession,
  writeRunSummary,
  type InjectOptions,
} from './session.js';
import { specHash, type BugTypeSpec } from './spec.js';
import { nextTry, triesInOrder, witnessFor } from './try-order.js';

/*
 * Stage 2's rules engine: each bug type's rewrites of the members the witnesses reach, tried in a
 * seeded order in a validation session (session.ts) shared with the agent engine.
 */

const RULES: EngineRef = { kind: 'rules' };

/** A rules-engine candidate: one rewrite in one reached member. */
interface RuleCandidate {
  id: string;
  file: string;
  /** The clean file, as site search read it. */
  before: string;
  member: string;
  line: number;
  description: string;
  edits: TextEdit[];
  plausibility: Plausibility;
  witnesses: string[];
}

/** Content-addressed: the same state, type (as its spec reads), file and rewrite, the same id. */
function candidateId(state: ProjectState, spec: BugTypeSpec, file: string, after: string): string {
  const key = [state.id, spec.id, specHash(spec), file, sha256Text(after)];
  return sha256Text(key.join('\0')).slice(0, 16);
}

/** The members of each file that witnesses reach, with the witnesses reaching each. */
function reachedMembers(contexts: readonly ExecutionContextRecord[], productionRoot: string) {
  const byFile = new Map<
    string,
    Map<string, { name: string; line: number; witnesses: string[] }>
  >();
  for (const record of contexts) {
    for (const location of record.trace) {
      if (!location.file || location.line === null) continue;
      if (!location.file.startsWith(`${productionRoot}/`)) continue; // generated sources are rebuilt
      const name = location.method === '<clinit>' ? null : location.method;
      if (!name) continue;
      const members = byFile.get(location.file) ?? new Map();
      byFile.set(location.file, members);
      const key = `${name}:${location.line}`;
      const entry = members.get(key) ?? { name, line: location.line, witnesses: [] };
      if (!entry.witnesses.includes(record.testClass)) entry.witnesses.push(record.testClass);
      members.set(key, entry);
    }
  }
  return byFile;
}

/** The types the project's production sources declare. */
async function projectTypes(project: ProjectRef, productionRoot: string): Promise<ProjectTypes> {
  const root = path.join(project.root, productionRoot);
  const files = (await readdir(root, { recursive: true })).filter((file) => file.endsWith('.java'));
  const sources = await Promise.all(
    files.sort().map((file) => readFile(path.join(root, file), 'utf8')),
  );
  return ProjectTypes.fromSources(sources);
}

/**
 * Every rewrite the type's rules offer in reached members, one parse per file. Constructors are
 * named after their class in traces, as in source.
 */
async function ruleCandidates(
  project: ProjectRef,
  spec: BugTypeSpec,
  contexts: readonly ExecutionContextRecord[],
  productionRoot: string,
  types: ProjectTypes,
): Promise<RuleCandidate[]> {
  const injector = injectorFor(spec.id);
  const pristine = pristineState(project);
  const candidates: RuleCandidate[] = [];
  for (const [file, reached] of reachedMembers(contexts, productionRoot)) {
    const source = await readFile(path.join(project.root, file), 'utf8');
    const rewrites = rewritesIn(
      injector,
      source,
      (name, line) => reached.get(`${name}:${line}`),
      types,
    );
    for (const rewrite of rewrites) {
      candidates.push({
        id: candidateId(pristine, spec, file, rewrite.after),
        file,
        before: source,
        member: rewrite.member,
        line: rewrite.mark.line,
        description: rewrite.description,
        edits: rewrite.edits,
        plausibility: rewrite.plausibility,
        witnesses: rewrite.mark.witnesses,
      });
    }
  }
  return candidates;
}

/** A rules run's summary, and the bugs its output directory holds (earlier runs' included). */
export interface RulesInjection {
  summary: InjectSummary;
  accepted: InjectionRecord[];
}

/**
 * Stage 2 with the rules engine: for each bug type, tries rewrites of members the witnesses
 * reach, in a seeded order, until `count` are accepted or the tries run out. Accepted bugs and
 * rejections are appended as they are decided, so an interrupted run resumes where it stopped.
 */
export async function injectWithRules(options: InjectOptions): Promise<RulesInjection> {
  const productionRoot = options.project.layout.mainSources;
  return withValidationSession(options, async (session) => {
    const declared = await projectTypes(options.project, productionRoot);
    const types: TypeSummary[] = [];
    for (const [index, spec] of options.specs.entries()) {
      const typeStarted = performance.now();
      const injector = injectorFor(spec.id);
      const candidates = await ruleCandidates(
        options.project,
        spec,
        options.contexts,
        productionRoot,
        declared,
      );
      announceType(options, index, spec, candidates.length);
      let triedNow = 0;
      const order = triesInOrder(candidates, typeRandom(options.seed, spec.id));
      for (;;) {
        if (
          session.output.tally(bugTypeRef(spec), options.project.base, RULES).accepted >=
          options.count
        ) {
          break;
        }
        if (triedNow >= options.maxTries) break;
        const spread = session.output.spread(options.project.base, RULES);
        const candidate = nextTry(order, (c) => session.output.isDecided(c.id), spread);
        if (!candidate) break;
        triedNow++;
        const witness = session.contextOf.get(
          witnessFor(candidate.file, candidate.witnesses, session.witnessOrder, spread.witnessUses),
        )!;
        const changes: FileChange[] = [
          {
            file: candidate.file,
            before: candidate.before,
            after: applyEdits(candidate.before, candidate.edits),
          },
        ];
        const outcome = await session.validator.validate(
          spec,
          injector,
          witness.testClass,
          session.reference,
          changes,
        );
        await recordOutcome(
          {
            session,
            options,
            spec,
            engine: RULES,
            id: candidate.id,
            witness,
            site: {
              file: candidate.file,
              member: candidate.member,
              line: candidate.line,
              description: candidate.description,
            },
          },
          outcome,
        );
      }
      types.push(
        typeSummary(
          spec,
          RULES,
          session,
          options,
          { sites: candidates.length, triesLeft: triedNow < options.maxTries },
          Math.round(performance.now() - typeStarted),
        ),
      );
    }
    const summary = await writeRunSummary(session, options, RULES, types);
    return { summary, accepted: [...session.output.accepted] };
  });
}
