import { jobRegistry } from '../jobs/kind.js';
import { evaluateAttemptJob } from '../stages/5-evaluate/attempt-job.js';
import { strengthenInstanceJob } from '../stages/7-strengthen/instance-job.js';
import { buildCaseJob } from './case-job.js';

/** Every kind of job a worker of this witnessgym runs: the stages' units, by name. */
export const JOB_KINDS = jobRegistry([evaluateAttemptJob, buildCaseJob, strengthenInstanceJob]);
