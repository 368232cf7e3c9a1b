import type { EventSink, ProgressEvent, StageName } from './types.js';

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function duration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const minutes = Math.floor(total / 60);
  return minutes > 0 ? `${minutes}m${String(total % 60).padStart(2, '0')}s` : `${total}s`;
}

/** The line an event is worth in a plain log, or null when it is only progress. */
export function plainLine(event: ProgressEvent): string | null {
  switch (event.kind) {
    case 'StageStarted':
      return null;
    case 'ItemDone':
      return `${event.stage}: ${event.done}/${event.total ?? '?'} ${event.item}: ${event.outcome}`;
    case 'TypeStarted':
      return event.sites === null
        ? `inject: ${event.typeId}: agent tasks`
        : `inject: ${event.typeId}: ${event.sites} ${event.sites === 1 ? 'site' : 'sites'} in reached members`;
    case 'CandidateDecided':
      return event.decision === 'Accepted'
        ? `inject: ${event.typeId}: accepted ${event.candidateId} ${event.what} (${event.detail})`
        : `inject: ${event.typeId}: rejected ${event.what} (${event.detail})`;
    case 'BuildProgress':
      return `build: ${event.archived}/${event.wanted} cases: ${event.item}: ${event.outcome}`;
    case 'TypeFinished':
      return `inject: ${event.typeId}: ${event.accepted} accepted of ${event.tried} tried in ${seconds(event.durationMs)}`;
    case 'Note':
      return `${event.stage}: ${event.message}`;
    case 'StageFinished':
      return `${event.stage}: ${event.subject} done in ${seconds(event.durationMs)}`;
  }
}

/** Plain lines, one per event worth one: for logs, pipes and CI. */
export function plainSink(write: (line: string) => void): EventSink {
  return {
    emit(event) {
      const line = plainLine(event);
      if (line !== null) write(line);
    },
  };
}

/** Every event as one JSON line with its time, for machines (`--json`). */
export function jsonLinesSink(write: (line: string) => void): EventSink {
  return { emit: (event) => write(JSON.stringify({ at: new Date().toISOString(), ...event })) };
}

/** What the status line knows of the stage in progress. */
export interface StageProgress {
  stage: StageName;
  subject: string;
  startedAt: number;
  total: number | null;
  unit: string;
  done: number;
  /** Inject: the type being tried and the durations of finished types, for the ETA. */
  type?: {
    id: string;
    index: number;
    of: number;
    wanted: number;
    accepted: number;
    tried: number;
    startedAt: number;
  };
  typeDurations: number[];
}

/** What the status line knows of a build, which outlives the stages it runs. */
export interface BuildStatus {
  startedAt: number;
  /** Archived when the display started: an earlier run's, not counted in the rate. */
  startArchived: number;
  archived: number;
  wanted: number;
  tried: number;
  rejectedBy: Record<string, number>;
}

/** The build's part of the status line: cases done/wanted, short ones by stage, rate and ETA. */
export function buildStatusLine(build: BuildStatus, now: number): string {
  const parts = [`[build] ${build.archived}/${build.wanted} cases`, `${build.tried} tried`];
  const shortOnes = Object.entries(build.rejectedBy).map(([stage, n]) => `${n} ${stage}`);
  if (shortOnes.length > 0) parts.push(`short: ${shortOnes.join(', ')}`);
  const elapsed = now - build.startedAt;
  const made = build.archived - build.startArchived;
  if (elapsed > 0 && made > 0) {
    const perMs = made / elapsed;
    parts.push(`${(perMs * 3_600_000).toFixed(1)} cases/h`);
    parts.push(`ETA ${duration((build.wanted - build.archived) / perMs)}`);
  }
  return parts.join(' · ');
}

/** The status line of a stage: done/total, rate and ETA. */
export function statusLine(progress: StageProgress, now: number): string {
  const elapsed = now - progress.startedAt;
  const parts = [`[${progress.stage}] ${progress.subject}`];
  const { type } = progress;
  if (type) {
    parts.push(`type ${type.index}/${type.of} ${type.id}`);
    parts.push(`${type.accepted}/${type.wanted} accepted, ${type.tried} tried`);
    const triedAll = progress.done;
    if (elapsed > 0 && triedAll > 0)
      parts.push(`${((triedAll * 60_000) / elapsed).toFixed(1)} candidates/min`);
    if (progress.typeDurations.length > 0) {
      const average =
        progress.typeDurations.reduce((sum, ms) => sum + ms, 0) / progress.typeDurations.length;
      const remaining = average * (type.of - type.index + 1) - (now - type.startedAt);
      parts.push(`ETA ${duration(remaining)}`);
    }
  } else {
    parts.push(
      progress.total === null
        ? `${progress.done} ${progress.unit}`
        : `${progress.done}/${progress.total} ${progress.unit}`,
    );
    if (elapsed > 0 && progress.done > 0) {
      const perSecond = (progress.done * 1000) / elapsed;
      parts.push(`${perSecond.toFixed(perSecond < 10 ? 2 : 1)}/s`);
      if (progress.total !== null) {
        parts.push(`ETA ${duration(((progress.total - progress.done) * 1000) / perSecond)}`);
      }
    }
  }
  parts.push(duration(elapsed));
  return parts.join(' · ');
}

/**
 * A live display for a terminal: the lines a plain log would show scroll above one status line
 * that is redrawn in place (and every second, so the clock and ETA move while a step runs).
 */
function terminalSink(stream: NodeJS.WriteStream): EventSink & { stop(): void } {
  let progress: StageProgress | undefined;
  let build: BuildStatus | undefined;
  let shown = false;
  const clear = () => {
    if (shown) stream.write('\r\x1b[2K');
    shown = false;
  };
  const draw = () => {
    if (!progress && !build) return;
    const now = performance.now();
    const width = stream.columns || 120;
    const line = [
      ...(build ? [buildStatusLine(build, now)] : []),
      ...(progress ? [statusLine(progress, now)] : []),
    ].join(' | ');
    stream.write(`\r\x1b[2K${line.slice(0, width - 1)}`);
    shown = true;
  };
  const timer = setInterval(draw, 1000);
  timer.unref();
  return {
    emit(event) {
      const now = performance.now();
      switch (event.kind) {
        case 'StageStarted':
          progress = {
            stage: event.stage,
            subject: event.subject,
            startedAt: now,
            total: event.total,
            unit: event.unit,
            done: 0,
            typeDurations: [],
          };
          break;
        case 'ItemDone':
          if (progress) progress.done = event.done;
          break;
        case 'TypeStarted':
          if (progress) {
            progress.type = {
              id: event.typeId,
              index: event.index,
              of: event.of,
              wanted: event.wanted,
              accepted: 0,
              tried: 0,
              startedAt: now,
            };
          }
          break;
        case 'CandidateDecided':
          if (progress?.type) {
            progress.done++;
            progress.type.accepted = event.accepted;
            progress.type.tried = event.tried;
          }
          break;
        case 'BuildProgress':
          build = {
            startedAt: build?.startedAt ?? now,
            startArchived: build?.startArchived ?? event.archived,
            archived: event.archived,
            wanted: event.wanted,
            tried: event.tried,
            rejectedBy: event.rejectedBy,
          };
          break;
        case 'TypeFinished':
          if (progress?.type) progress.typeDurations.push(now - progress.type.startedAt);
          break;
        case 'StageFinished':
          progress = undefined;
          break;
        case 'Note':
          break;
      }
      const line = plainLine(event);
      if (line !== null && event.kind !== 'ItemDone') {
        clear();
        stream.write(`${line}\n`);
      }
      if (progress || build) draw();
      else clear();
    },
    stop() {
      clearInterval(timer);
      clear();
    },
  };
}

/**
 * The display for a command: JSON lines with `--json`, a live status line on a terminal, plain
 * lines elsewhere; all on stderr, which leaves stdout to the command's result.
 */
export function progressSink(options: { json: boolean }): EventSink & { stop(): void } {
  const write = (line: string) => process.stderr.write(`${line}\n`);
  if (options.json) return { ...jsonLinesSink(write), stop: () => undefined };
  if (process.stderr.isTTY) return terminalSink(process.stderr);
  return { ...plainSink(write), stop: () => undefined };
}
