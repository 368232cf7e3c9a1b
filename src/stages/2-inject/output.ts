import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { specText } from '../../agents/types.js';
import { note, type EventSink } from '../../events/types.js';
import { sameBase, type ProjectBase } from '../../project/state.js';
import { appendRecords, readRecords, writeRecordFile } from '../../records/record.js';
import {
  InjectionLine,
  InjectSummaryFile,
  readEarlierSummary,
  RejectionLine,
  type BugTypeRef,
  type Coverage,
  type EarlierSummary,
  type EngineRef,
  type InjectionRecord,
  type InjectSummary,
  type RejectionRecord,
} from './records.js';
import { memberId, type Covered } from './try-order.js';
import type { RejectionStage } from './validate.js';

/*
 * An inject run's output directory, whichever engine writes it: the records of every decided
 * candidate and the run's summary, and the tallies read from them.
 */

/** Records of one engine count towards its own `--count` only. */
function sameEngine(a: EngineRef, b: EngineRef): boolean {
  if (a.kind === 'rules' || b.kind === 'rules') return a.kind === b.kind;
  return (
    specText(a.agent) === specText(b.agent) &&
    a.attempts === b.attempts &&
    a.promptVersion === b.promptVersion
  );
}

/**
 * The output directory: accepted injections and rejections as JSONL (appended as each candidate
 * is decided, so an interrupted run resumes), and the summary.
 */
export class InjectionOutput {
  readonly accepted: InjectionRecord[] = [];
  readonly rejected: RejectionRecord[] = [];
  private readonly decided = new Set<string>();
  /** The summary an earlier run into this directory left, if any. */
  private earlier: EarlierSummary | undefined;

  private constructor(readonly dir: string) {}

  static async open(dir: string, events: EventSink): Promise<InjectionOutput> {
    const output = new InjectionOutput(dir);
    await mkdir(dir, { recursive: true });
    const injections = await readRecords(output.file('injections.jsonl'), InjectionLine);
    const rejections = await readRecords(output.file('rejections.jsonl'), RejectionLine);
    for (const [name, read] of [
      ['injections.jsonl', injections],
      ['rejections.jsonl', rejections],
    ] as const) {
      if (read.tornLastLine) {
        const where = `${output.file(name)}:${read.tornLastLine.line}`;
        note(
          events,
          'inject',
          `${where} was cut short by an interrupted run; its candidate is decided again`,
        );
      }
    }
    output.accepted.push(...injections.records);
    output.rejected.push(...rejections.records);
    output.earlier = await readEarlierSummary(output.file('summary.json'));
    for (const record of [...output.accepted, ...output.rejected]) output.decided.add(record.id);
    return output;
  }

  file(name: string): string {
    return path.join(this.dir, name);
  }

  isDecided(id: string): boolean {
    return this.decided.has(id);
  }

  async accept(record: InjectionRecord): Promise<void> {
    await appendRecords(this.file('injections.jsonl'), InjectionLine, [record]);
    this.accepted.push(record);
    this.decided.add(record.id);
  }

  async reject(record: RejectionRecord): Promise<void> {
    await appendRecords(this.file('rejections.jsonl'), RejectionLine, [record]);
    this.rejected.push(record);
    this.decided.add(record.id);
  }

  /**
   * Accepted, tried and rejections by stage so far (earlier runs included) of one bug type, as
   * its spec now reads, by one engine, on one base: a directory reused for another project or
   * after a spec edit counts only its own work.
   */
  tally(bugType: BugTypeRef, base: ProjectBase, engine: EngineRef) {
    const mine = (record: InjectionRecord | RejectionRecord) =>
      record.bugType.id === bugType.id &&
      record.bugType.specHash === bugType.specHash &&
      sameBase('state' in record ? record.state.base : record.base, base) &&
      sameEngine(record.engine, engine);
    const accepted = this.accepted.filter(mine).length;
    const rejections = this.rejected.filter(mine);
    const rejectedBy: Partial<Record<RejectionStage, number>> = {};
    for (const record of rejections) rejectedBy[record.stage] = (rejectedBy[record.stage] ?? 0) + 1;
    return { accepted, tried: accepted + rejections.length, rejectedBy };
  }

  /** Accepted bugs of one engine on one base, whatever their type. */
  private acceptedOn(base: ProjectBase, engine: EngineRef): InjectionRecord[] {
    return this.accepted.filter(
      (record) => sameBase(record.state.base, base) && sameEngine(record.engine, engine),
    );
  }

  /** Where the accepted bugs of one engine on one base are: what the next tries avoid. */
  spread(base: ProjectBase, engine: EngineRef): Covered & { witnessUses: Map<string, number> } {
    const accepted = this.acceptedOn(base, engine);
    const witnessUses = new Map<string, number>();
    for (const { witness } of accepted)
      witnessUses.set(witness.testClass, (witnessUses.get(witness.testClass) ?? 0) + 1);
    return {
      files: new Set(accepted.map((record) => record.site.file)),
      members: new Set(accepted.map((record) => memberId(record.site))),
      witnessUses,
    };
  }

  /** How many files, members and witnesses the accepted bugs of these types (as their specs now read) cover. */
  coverage(bugTypes: readonly BugTypeRef[], base: ProjectBase, engine: EngineRef): Coverage {
    const accepted = this.acceptedOn(base, engine).filter((record) =>
      bugTypes.some(
        (type) => type.id === record.bugType.id && type.specHash === record.bugType.specHash,
      ),
    );
    return {
      accepted: accepted.length,
      files: new Set(accepted.map((record) => record.site.file)).size,
      members: new Set(accepted.map((record) => memberId(record.site))).size,
      witnesses: new Set(accepted.map((record) => record.witness.testClass)).size,
    };
  }

  /** The time earlier runs into this directory spent on a type, from their summary. */
  earlierDuration(typeId: string, engine: EngineRef): number {
    if (!this.earlier || !sameEngine(this.earlier.engine, engine)) return 0;
    return this.earlier.types.find((type) => type.typeId === typeId)?.durationMs ?? 0;
  }

  async writeSummary(summary: InjectSummary): Promise<InjectSummary> {
    await writeRecordFile(this.file('summary.json'), InjectSummaryFile, summary);
    return summary;
  }
}
