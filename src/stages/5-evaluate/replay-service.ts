import { chmod, mkdir, readdir, rename, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../../core/errors.js';
import { makeTempDir, removeTree } from '../../core/fs.js';
import { readUntrustedFile } from '../../core/untrusted-fs.js';

/*
 * Maven for a sandboxed agent, run by the harness. Maven's own libraries and the plugins'
 * dependencies include corpus projects (Debian's Maven ships commons-lang3 3.12.0 and commons-io
 * 2.11.0, the very versions of two corpus projects), so no Maven may run inside the sandbox: there
 * a `mvn` shim hands its arguments to the harness and prints what the harness answers. The harness
 * runs the test the agent asked for on a fresh buggy tree with the agent's test files, as the
 * verifier would, and answers with the verdict.
 *
 * The channel is two directories. The shim writes requests into `requests/`, which the sandbox
 * may fill with anything (links to host files, FIFOs, gigabytes): the harness only reads there,
 * without following links or blocking, up to a cap, and deletes; it never writes there. Answers
 * go into `answers/`, bound read-only into the sandbox, so no name in it can be a link the
 * sandbox planted. The shim cannot delete its answer: it marks it read (`<id>.done` in
 * requests/) and the harness removes it then, or at stop.
 */

export interface ReplayAnswer {
  exitCode: number;
  output: string;
}

export interface ReplayService {
  /** Holds the shim; bound read-only into the sandbox and put first on its PATH. */
  binDir: string;
  /** Where the shim drops requests and marks answers read; bound writable into the sandbox. */
  requests: string;
  /** Where the harness answers; bound read-only into the sandbox. */
  answers: string;
  /** Requests answered so far. */
  answered(): number;
  /** Stops taking requests once the one in hand is answered, and removes the directories. */
  stop(): Promise<void>;
}

const POLL_MS = 200;
/** A Maven command line is a few hundred bytes; the caps only bound what the sandbox can make us read. */
const REQUEST_BYTES = 64 * 1024;
const REQUEST_ARGS = 200;
/** Every answer passes through here, so none can carry a whole file back into the sandbox. */
const ANSWER_BYTES = 64 * 1024;
/** The shim's ids: its pid and the time in nanoseconds. Anything else is not a request. */
const ID = String.raw`\d{1,20}\.\d{1,30}`;
const REQUEST_NAME = new RegExp(`^(${ID})\\.args$`);
const DONE_NAME = new RegExp(`^(${ID})\\.done$`);
/** The code a refused or failed request answers with: not a test result (Maven's own is 1). */
const REFUSED = 2;

type Request = { kind: 'Args'; args: string[] } | { kind: 'Refused'; reason: string };

/** The shim: writes its arguments one per line, waits for the exit code, prints the answer. */
function shim(requests: string, answers: string): string {
  return `#!/bin/sh
# witnessgym: Maven does not run in this sandbox. This command hands its arguments to the
# evaluation harness, which runs the requested test on the buggy code with your test files.
requests='${requests}'
answers='${answers}'
id="$$.$(date +%s%N)"
printf '%s\\n' "$@" > "$requests/$id.args.tmp" && mv "$requests/$id.args.tmp" "$requests/$id.args" || exit ${REFUSED}
while [ ! -f "$answers/$id.code" ]; do sleep 0.2; done
cat "$answers/$id.out"
code=$(cat "$answers/$id.code")
: > "$requests/$id.done"
exit "$code"
`;
}

async function readRequest(file: string): Promise<Request | undefined> {
  const read = await readUntrustedFile(file, REQUEST_BYTES);
  switch (read.kind) {
    case 'Missing':
      return undefined; // taken away by the sandbox before it was read: no one waits for it
    case 'NotRegular':
      return { kind: 'Refused', reason: `the request is a ${read.type}, not a regular file` };
    case 'TooLarge':
      return {
        kind: 'Refused',
        reason: `the request holds ${read.bytes} bytes, over the limit of ${read.limit}`,
      };
    case 'Read': {
      const args = read.content.toString('utf8').split('\n').slice(0, -1);
      if (args.length > REQUEST_ARGS) {
        return {
          kind: 'Refused',
          reason: `the request has ${args.length} arguments, over the limit of ${REQUEST_ARGS}`,
        };
      }
      return { kind: 'Args', args };
    }
  }
}

/** The output's head and tail, at most ANSWER_BYTES in all, saying how much was left out. */
function capped(output: string): string {
  const bytes = Buffer.from(output, 'utf8');
  if (bytes.length <= ANSWER_BYTES) return output;
  const half = ANSWER_BYTES / 2;
  const dropped = bytes.length - 2 * half;
  return `${bytes.subarray(0, half).toString('utf8')}\n[witnessgym: ${dropped} bytes of output left out]\n${bytes.subarray(bytes.length - half).toString('utf8')}`;
}

/** Removes what the sandbox put at `file`, whatever it is; an entry that stays is left alone. */
async function discard(file: string): Promise<void> {
  // unlink removes a link itself, never its target.
  await unlink(file).catch(() => rmdir(file).catch(() => undefined));
}

/** Starts answering the requests of one item's agent runs with `answer`, one at a time. */
export async function startReplayService(
  answer: (args: string[]) => Promise<ReplayAnswer>,
): Promise<ReplayService> {
  const root = await makeTempDir('replay-service');
  const binDir = path.join(root, 'bin');
  const requests = path.join(root, 'requests');
  const answers = path.join(root, 'answers');
  for (const dir of [binDir, requests, answers]) await mkdir(dir);
  for (const name of ['mvn', 'mvnw']) {
    await writeFile(path.join(binDir, name), shim(requests, answers));
    await chmod(path.join(binDir, name), 0o755);
  }
  let answered = 0;
  let stopped = false;
  /** Ids taken once: a request the sandbox re-creates, or one that cannot be deleted, is not served again. */
  const taken = new Set<string>();
  /** Ids whose answer is written and not yet marked read. */
  const unread = new Set<string>();

  const writeAnswerFile = async (name: string, content: string) => {
    // Should answers/ ever be writable inside (an agent's writable path holding it), O_EXCL
    // refuses a planted link instead of writing through it, and the rename replaces one.
    const temporary = path.join(answers, `${name}.tmp`);
    await writeFile(temporary, content, { flag: 'wx' });
    await rename(temporary, path.join(answers, name));
  };

  const serve = async (id: string) => {
    const file = path.join(requests, `${id}.args`);
    let request: Request | undefined;
    try {
      request = await readRequest(file);
    } catch (error) {
      request = {
        kind: 'Refused',
        reason: `the request could not be read: ${errorMessage(error)}`,
      };
    }
    await discard(file);
    if (!request) return;
    let reply: ReplayAnswer;
    if (request.kind === 'Refused') {
      reply = { exitCode: REFUSED, output: `witnessgym replay: ${request.reason}; nothing ran\n` };
    } else {
      try {
        reply = await answer(request.args);
      } catch {
        reply = {
          exitCode: REFUSED,
          // The error names the harness's own files: the agent is told only whose fault it is.
          output:
            'witnessgym replay: the harness failed to run this request (its fault, not your test)\n',
        };
      }
    }
    // The output first, the code last: the shim reads the output once the code is there.
    await writeAnswerFile(`${id}.out`, capped(reply.output));
    await writeAnswerFile(`${id}.code`, String(reply.exitCode));
    unread.add(id);
    answered++;
  };

  const collect = async (id: string) => {
    unread.delete(id);
    await rm(path.join(answers, `${id}.out`), { force: true });
    await rm(path.join(answers, `${id}.code`), { force: true });
    await discard(path.join(requests, `${id}.done`));
  };

  const poll = async () => {
    const names = (await readdir(requests).catch(() => [] as string[])).sort();
    for (const name of names) {
      if (stopped) return;
      const done = DONE_NAME.exec(name)?.[1];
      if (done !== undefined && unread.has(done)) await collect(done);
      const id = REQUEST_NAME.exec(name)?.[1];
      if (id === undefined || taken.has(id)) continue;
      taken.add(id);
      await serve(id).catch(() => undefined);
    }
  };

  let polling: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    polling = poll()
      .catch(() => undefined)
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, POLL_MS);
      });
  };
  timer = setTimeout(tick, POLL_MS);

  return {
    binDir,
    requests,
    answers,
    answered: () => answered,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await polling;
      await removeTree(root);
    },
  };
}
