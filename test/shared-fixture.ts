import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { inject } from 'vitest';
import { runProcess } from '../src/core/process.js';
import type { CaseRecord } from '../src/stages/4-archive/case.js';
import { ESCAPE, plantedTexts, type PlantedInstance } from './planted-escape.js';

/*
 * The json-simple fixture test/global-setup.ts makes once per run, as a test file sees it. The
 * inject run, the benchmark and the planted instance are copied before use, so no file sees
 * another's writes.
 */

/** The fetched json-simple pristine tree (never written to). */
export function jsonSimplePristine(): string {
  return inject('jsonSimple').pristine;
}

async function copyInto(from: string, to: string): Promise<string> {
  const copied = await runProcess('cp', ['-a', from, to], { timeoutMs: 120_000 });
  if (copied.exitCode !== 0) throw new Error(`cannot copy ${from}: ${copied.stderr}`);
  return to;
}

/**
 * A copy in `work` of `inject json-simple --types <INJECTED_TYPES> --count 2 --seed 3`, the
 * run the transform files start from.
 */
export async function sharedInjection(work: string): Promise<string> {
  return copyInto(inject('jsonSimple').injected, path.join(work, 'inject'));
}

/** A copy in `work` of the one-case json-simple benchmark (see oneCaseBench). */
export async function sharedOneCaseBench(
  work: string,
): Promise<{ bench: string; caseDir: string; record: CaseRecord }> {
  const shared = inject('jsonSimple').oneCase;
  const bench = await copyInto(shared.bench, path.join(work, 'bench'));
  const caseDir = path.join(bench, path.basename(shared.caseDir));
  const record = JSON.parse(await readFile(path.join(caseDir, 'case.json'), 'utf8')) as CaseRecord;
  return { bench, caseDir, record };
}

/**
 * A copy in `work` of the planted instance (test/planted-escape.ts) under `instances/`, with the
 * record of S0 having found it valid.
 */
export async function sharedPlantedInstance(work: string): Promise<PlantedInstance> {
  const instances = await copyInto(inject('jsonSimple').planted, path.join(work, 'instances'));
  const fixed = await readFile(path.join(jsonSimplePristine(), ESCAPE), 'utf8');
  return { instancesFile: path.join(instances, 'instances.jsonl'), ...plantedTexts(fixed) };
}
