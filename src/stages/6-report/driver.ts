import path from 'node:path';
import { UserError } from '../../core/errors.js';
import { exists } from '../../core/fs.js';
import { DEFAULT_RUN_DIR, EvaluationStore, STORE_FILE } from '../5-evaluate/store.js';
import { resultTables, type ResultTables } from './tables.js';

/** The tables of a run directory's finished attempts, every agent's. */
export async function runTables(runDir: string): Promise<ResultTables> {
  if (!(await exists(path.join(runDir, STORE_FILE)))) throw new UserError(await noResults(runDir));
  const store = EvaluationStore.open(runDir);
  try {
    return resultTables(store.allAttempts());
  } finally {
    store.close();
  }
}

/** Why `dir` gives no tables: where its results are (given a benchmark), or what gives them. */
async function noResults(dir: string): Promise<string> {
  const problem = `${dir} holds no evaluation results (no ${STORE_FILE})`;
  const evaluation = path.join(dir, DEFAULT_RUN_DIR);
  if (await exists(path.join(evaluation, STORE_FILE))) {
    return `${problem}; this benchmark's are in ${evaluation}: run 'witnessgym report ${evaluation}'`;
  }
  return `${problem}: give the run directory of 'witnessgym evaluate', <bench>/${DEFAULT_RUN_DIR} unless its --run named another`;
}
