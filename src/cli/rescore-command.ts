import path from 'node:path';
import type { CacheLayout } from '../core/cache.js';
import type { EventSink } from '../events/types.js';
import { runRescore, type RescoreEntry, type RescoreResult } from '../stages/5-evaluate/rescore.js';

export interface RescoreCommandOptions {
  bench?: string;
  again?: boolean;
  runs: number;
  /** Seconds. */
  verifyTimeout: number;
  json?: boolean;
}

export async function runRescoreCommand(
  runDir: string,
  options: RescoreCommandOptions,
  cache: CacheLayout,
  events: EventSink,
): Promise<RescoreResult> {
  return runRescore({
    runDir: path.resolve(runDir),
    ...(options.bench !== undefined ? { bench: path.resolve(options.bench) } : {}),
    cache,
    again: options.again ?? false,
    runs: options.runs,
    verifyTimeoutMs: options.verifyTimeout * 1000,
    events,
  });
}

function entryLine(entry: RescoreEntry): string {
  const { key } = entry;
  const item = `${key.caseId}  ${key.agent}  ${key.setting}  attempt ${key.attempt}`;
  switch (entry.kind) {
    case 'NotRescored':
      return `  ${item}: ${entry.before.kind}, not rescored: ${entry.reason}`;
    case 'Changed':
    case 'Unchanged':
      return `  ${item}: ${entry.before.kind} → ${entry.after.kind}${entry.earlier ? ' (rescored earlier)' : ''}`;
  }
}

export function formatRescore(result: RescoreResult): string {
  const lines = [
    `rescored ${result.runDir} (benchmark ${result.bench}) with verifier ${result.verifier}`,
  ];
  const headings: Record<RescoreEntry['kind'], string> = {
    Changed: 'changed',
    NotRescored: 'not rescored',
    Unchanged: 'unchanged',
  };
  for (const kind of ['Changed', 'NotRescored', 'Unchanged'] as const) {
    const entries = result.entries.filter((entry) => entry.kind === kind);
    if (entries.length === 0) continue;
    lines.push('', `${headings[kind]} (${entries.length}):`, ...entries.map(entryLine));
  }
  lines.push(
    '',
    `${result.rows} rows: ${result.rows - result.notJudgedByVerifier} judged by the verifier (${result.rescoredNow} rescored now, ${result.rescoredEarlier} earlier by this verifier): ${result.changed} changed, ${result.unchanged} unchanged, ${result.notRescored} not rescored; ${result.notJudgedByVerifier} settled before the verifier ran (NoTest, Violation, AgentTimeout, AgentFailed)`,
  );
  return lines.join('\n');
}
