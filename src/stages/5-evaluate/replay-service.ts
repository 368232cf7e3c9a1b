import { chmod, mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../../core/errors.js';
import { makeTempDir, removeTree } from '../../core/fs.js';

/*
 * Maven for a sandboxed agent, run by the harness. Maven's own libraries and the plugins'
 * dependencies include corpus projects (Debian's Maven ships commons-lang3 3.12.0 and commons-io
 * 2.11.0, the very versions of two corpus projects), so no Maven may run inside the sandbox: there
 * a `mvn` shim hands its arguments to the harness through a directory both see, and prints what
 * the harness answers. The harness runs the test the agent asked for on a fresh buggy tree with
 * the agent's test files, as the verifier would, and answers with the verdict.
 */

export interface ReplayAnswer {
  exitCode: number;
  output: string;
}

export interface ReplayService {
  /** Holds the shim; bound read-only into the sandbox and put first on its PATH. */
  binDir: string;
  /** Where requests and answers pass; bound writable into the sandbox. */
  channel: string;
  /** Requests answered so far. */
  answered(): number;
  /** Stops taking requests once the one in hand is answered, and removes the directories. */
  stop(): Promise<void>;
}

const POLL_MS = 200;

/** The shim: writes its arguments one per line, waits for the exit code, prints the answer. */
function shim(channel: string): string {
  return `#!/bin/sh
# witnessgym: Maven does not run in this sandbox. This command hands its arguments to the
# evaluation harness, which runs the requested test on the buggy code with your test files.
channel='${channel}'
id="$$.$(date +%s%N)"
printf '%s\\n' "$@" > "$channel/$id.args.tmp" && mv "$channel/$id.args.tmp" "$channel/$id.args"
while [ ! -f "$channel/$id.code" ]; do sleep 0.2; done
cat "$channel/$id.out"
code=$(cat "$channel/$id.code")
rm -f "$channel/$id.out" "$channel/$id.code"
exit "$code"
`;
}

/** Starts answering the requests of one item's agent runs with `answer`, one at a time. */
export async function startReplayService(
  answer: (args: string[]) => Promise<ReplayAnswer>,
): Promise<ReplayService> {
  const root = await makeTempDir('replay-service');
  const binDir = path.join(root, 'bin');
  const channel = path.join(root, 'channel');
  await mkdir(binDir);
  await mkdir(channel);
  for (const name of ['mvn', 'mvnw']) {
    await writeFile(path.join(binDir, name), shim(channel));
    await chmod(path.join(binDir, name), 0o755);
  }
  let answered = 0;
  let stopped = false;
  let busy: Promise<void> = Promise.resolve();

  const serve = async (id: string) => {
    const taken = path.join(channel, `${id}.taken`);
    await rename(path.join(channel, `${id}.args`), taken);
    const args = (await readFile(taken, 'utf8')).split('\n').slice(0, -1);
    let reply: ReplayAnswer;
    try {
      reply = await answer(args);
    } catch (error) {
      reply = {
        exitCode: 2,
        output: `witnessgym replay: the harness failed: ${errorMessage(error)}\n`,
      };
    }
    // The output first, the code last: the shim reads the output once the code is there.
    await writeFile(path.join(channel, `${id}.out.tmp`), reply.output);
    await rename(path.join(channel, `${id}.out.tmp`), path.join(channel, `${id}.out`));
    await writeFile(path.join(channel, `${id}.code.tmp`), String(reply.exitCode));
    await rename(path.join(channel, `${id}.code.tmp`), path.join(channel, `${id}.code`));
    answered++;
  };

  const poll = async () => {
    if (stopped) return;
    const names = await readdir(channel).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.endsWith('.args')).sort()) {
      busy = busy.then(() => serve(name.slice(0, -'.args'.length)).catch(() => undefined));
      await busy;
    }
    if (!stopped) timer = setTimeout(() => void poll(), POLL_MS);
  };
  let timer = setTimeout(() => void poll(), POLL_MS);

  return {
    binDir,
    channel,
    answered: () => answered,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await busy;
      await removeTree(root);
    },
  };
}
