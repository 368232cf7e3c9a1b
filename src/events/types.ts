/**
 * What long work reports as it goes: typed events, not lines of text. A terminal display, plain
 * log lines, `--json` event streams (and later an HTML report or a job queue) are consumers of
 * the same events, as stryker-js's reporters are of its.
 */
export type StageName =
  | 'fetch'
  | 'baseline'
  | 'trace'
  | 'inject'
  | 'transform'
  | 'agent'
  | 'build'
  | 'verify'
  | 'evaluate'
  | 'validate'
  | 'strengthen';

export type ProgressEvent =
  /** A stage starts on a subject (a project, say); `total` units of work when known. */
  | { kind: 'StageStarted'; stage: StageName; subject: string; total: number | null; unit: string }
  /** One unit of a stage's work is done (a test class traced, a candidate decided...). */
  | {
      kind: 'ItemDone';
      stage: StageName;
      done: number;
      total: number | null;
      item: string;
      /** One line: what became of the item. */
      outcome: string;
    }
  /** Inject: a bug type's site search is over; its candidates are tried next. */
  | {
      kind: 'TypeStarted';
      typeId: string;
      /** Which type of how many in the run. */
      index: number;
      of: number;
      sites: number | null;
      wanted: number;
      maxTries: number;
    }
  /** Inject: a candidate was accepted or rejected (the record is written). */
  | {
      kind: 'CandidateDecided';
      typeId: string;
      candidateId: string;
      decision: 'Accepted' | 'Rejected';
      /** The member and change, or the candidate id when there is no site. */
      what: string;
      /** Accepted: the failure the witness showed; Rejected: the failed check's stage and reason. */
      detail: string;
      accepted: number;
      tried: number;
    }
  /** Build: a bug was tried in a plan cell (archived as a case, or short at a stage). */
  | {
      kind: 'BuildProgress';
      /** Cases archived towards the plan, and how many it wants. */
      archived: number;
      wanted: number;
      /** Bugs tried in cells so far, and those that fell short, by the stage that lost them. */
      tried: number;
      rejectedBy: Record<string, number>;
      item: string;
      outcome: string;
    }
  | { kind: 'TypeFinished'; typeId: string; accepted: number; tried: number; durationMs: number }
  /** A step worth a line that has no progress of its own (a download, a Maven build). */
  | { kind: 'Note'; stage: StageName; message: string }
  | { kind: 'StageFinished'; stage: StageName; subject: string; durationMs: number };

export interface EventSink {
  emit(event: ProgressEvent): void;
}

/** Drops every event: for library callers and tests that do not watch progress. */
export const silent: EventSink = { emit: () => undefined };

export function note(events: EventSink, stage: StageName, message: string): void {
  events.emit({ kind: 'Note', stage, message });
}
