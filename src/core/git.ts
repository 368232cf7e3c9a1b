import { runProcess } from './process.js';

/**
 * Fixed identity and date, so the same tree always yields the same commit id, and none of the
 * host's git configuration (hooks, templates, signing) applies.
 */
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'witnessgym',
  GIT_AUTHOR_EMAIL: 'witnessgym@localhost',
  GIT_COMMITTER_NAME: 'witnessgym',
  GIT_COMMITTER_EMAIL: 'witnessgym@localhost',
  GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** Runs git in a directory; its trimmed output, or an error naming the subcommand. */
export async function git(cwd: string, args: string[]): Promise<string> {
  const run = await runProcess('git', args, {
    cwd,
    env: { ...process.env, ...GIT_ENV },
    timeoutMs: 300_000,
  });
  if (run.exitCode !== 0) throw new Error(`git ${args[0]} failed: ${run.stderr.trim()}`);
  return run.stdout.trim();
}
