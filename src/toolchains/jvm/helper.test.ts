import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exists, makeTempDir, removeTree } from '../../core/fs.js';
import { JvmHelper } from './helper.js';
import { PROTOCOL_VERSION, type Request } from './protocol.js';

/*
 * The helper against a stand-in for the runner JVM: a node script started in its place that
 * connects to the socket (its last argument) and answers each request line with `answer`.
 */

const run: Request = {
  op: 'run',
  project: {
    key: 'k',
    classes: '/p/classes',
    testClasses: '/p/test-classes',
    classpath: [],
    bridge: '/b',
    release: null,
  },
  overlay: '/o',
  testClass: 'a.FooTest',
};

const PONG = `{ kind: 'Pong', id: request.id, v: ${PROTOCOL_VERSION}, pid: process.pid, java: '17' }`;

let dirs: string[] = [];
let helpers: JvmHelper[] = [];

afterEach(async () => {
  for (const helper of helpers) await helper.stop();
  for (const dir of dirs) await removeTree(dir);
  dirs = [];
  helpers = [];
});

/** A helper whose "JVM" answers with the line `answer` (JavaScript, given `request`) returns. */
async function fakeRunner(answer: string): Promise<JvmHelper> {
  const dir = await makeTempDir('fake-runner');
  dirs.push(dir);
  const java = path.join(dir, 'java.mjs');
  await writeFile(
    java,
    `#!${process.execPath}
import { connect } from 'node:net';
import { writeFileSync } from 'node:fs';
const socket = connect(process.argv.at(-1));
let buffered = '';
socket.setEncoding('utf8');
socket.on('data', (chunk) => {
  buffered += chunk;
  for (let newline; (newline = buffered.indexOf('\\n')) >= 0; ) {
    const request = JSON.parse(buffered.slice(0, newline));
    buffered = buffered.slice(newline + 1);
    socket.write((${answer}) + '\\n');
  }
});
`,
  );
  await chmod(java, 0o755);
  const helper = new JvmHelper(dir, java, [], { boot: [], classpath: [] });
  helpers.push(helper);
  return helper;
}

describe('JvmHelper', () => {
  it('gives the answer read with the schema of its request', async () => {
    const helper = await fakeRunner(
      `JSON.stringify(request.op === 'ping' ? ${PONG} : { kind: 'TestClassNotFound', id: request.id, className: request.testClass, restart: false })`,
    );
    expect(await helper.request(run, 10_000)).toEqual({
      kind: 'Answered',
      answer: { kind: 'TestClassNotFound', id: 2, className: 'a.FooTest', restart: false },
    });
    expect(helper.running).toBe(true);
  });

  it('refuses a runner of another protocol version before any request', async () => {
    const helper = await fakeRunner(`JSON.stringify({ ...${PONG}, v: ${PROTOCOL_VERSION + 1} })`);
    expect(await helper.request(run, 10_000)).toEqual({
      kind: 'ProtocolFault',
      startup: true,
      reason: `the runner JVM speaks protocol version ${PROTOCOL_VERSION + 1}, this harness version ${PROTOCOL_VERSION}`,
    });
    expect(helper.running).toBe(false);
  });

  it('makes a garbled answer a protocol fault and stops the JVM', async () => {
    const helper = await fakeRunner(
      `request.op === 'ping' ? JSON.stringify(${PONG}) : '{"kind":"Ran","id":' + request.id`,
    );
    const outcome = await helper.request(run, 10_000);
    expect(outcome).toMatchObject({ kind: 'ProtocolFault' });
    expect(outcome.kind === 'ProtocolFault' && outcome.reason).toMatch(
      /^answer to run request 2 is not JSON \(.*\): \{"kind":"Ran","id":2$/,
    );
    expect(helper.running).toBe(false);
    expect(helper.starts).toBe(1);
  });

  it('gives the JVM a temp directory of its own, removed when it stops', async () => {
    // The stand-in reports the java.io.tmpdir it was given, and leaves a file there.
    const helper = await fakeRunner(
      `request.op === 'ping' ? JSON.stringify(${PONG}) : (() => { const dir = process.argv.find((a) => a.startsWith('-Djava.io.tmpdir=')).slice(17); writeFileSync(dir + '/left.csv', 'x'); return JSON.stringify({ kind: 'TestClassNotFound', id: request.id, className: dir, restart: false }); })()`,
    );
    const outcome = await helper.request(run, 10_000);
    const dir =
      outcome.kind === 'Answered' && 'className' in outcome.answer ? outcome.answer.className : '';
    expect(dir).toMatch(/witnessgym-runner-tmp-/);
    expect(await exists(path.join(dir, 'left.csv'))).toBe(true);
    await helper.stop();
    expect(await exists(dir)).toBe(false);
  });
});
