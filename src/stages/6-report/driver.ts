import path from 'node:path';
import { UserError } from '../../core/errors.js';
import { exists } from '../../core/fs.js';
import { EvaluationStore, STORE_FILE } from '../5-evaluate/store.js';
import { resultTables, type ResultTables } from './tables.js';

/** The tables of a run directory's finished attempts, every agent's. */
export async function runTables(runDir: string): Promise<ResultTables> {
  if (!(await exists(path.join(runDir, STORE_FILE)))) {
    throw new UserError(
      `${runDir} holds no evaluation results (no ${STORE_FILE}): run 'witnessgym evaluate' with --run ${runDir}`,
    );
  }
  const store = EvaluationStore.open(runDir);
  try {
    return resultTables(store.allAttempts());
  } finally {
    store.close();
  }
}
