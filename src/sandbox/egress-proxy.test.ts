import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.js';
import { makeTempDir, removeTree } from '../core/fs.js';
import { runProcess, type RunResult } from '../core/process.js';
import { createCommandAdapter } from '../agents/adapters/cli.js';
import { createSandbox, EGRESS_PORT, type Sandbox } from './bwrap.js';
import {
  allowList,
  decisionLines,
  parseEndpoint,
  requestTarget,
  startEgressProxy,
  type EgressLimits,
  type EgressProxy,
} from './egress-proxy.js';

describe('parseEndpoint', () => {
  it('reads host:port, lower-cases the name and drops its final dot', () => {
    expect(parseEndpoint('api.anthropic.com:443')).toEqual({
      host: 'api.anthropic.com',
      port: 443,
    });
    expect(parseEndpoint('API.Example.COM.:8443')).toEqual({ host: 'api.example.com', port: 8443 });
    expect(parseEndpoint('127.0.0.1:8080')).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(parseEndpoint('[::1]:80')).toEqual({ host: '::1', port: 80 });
  });

  it('refuses what is not one host and one port', () => {
    for (const text of [
      'api.anthropic.com',
      'api.anthropic.com:0',
      'api.anthropic.com:65536',
      'https://api.anthropic.com:443',
      'user@api.anthropic.com:443',
      '*.anthropic.com:443',
      'a b:443',
      '::1:443',
      '[not-v6]:443',
      'host:443/path',
      ':443',
    ]) {
      expect(() => parseEndpoint(text), text).toThrow(UserError);
    }
  });
});

describe('requestTarget', () => {
  it('takes a CONNECT authority, and an http:// absolute URI with port 80 by default', () => {
    expect(requestTarget('CONNECT', 'Api.Openai.com:443')).toEqual({
      host: 'api.openai.com',
      port: 443,
    });
    expect(requestTarget('HTTP', 'http://127.0.0.1:9/v1/chat?x=1')).toEqual({
      host: '127.0.0.1',
      port: 9,
    });
    expect(requestTarget('HTTP', 'http://example.com/')).toEqual({ host: 'example.com', port: 80 });
    expect(requestTarget('HTTP', 'http://[::1]:8080/')).toEqual({ host: '::1', port: 8080 });
  });

  it('has no target for https in plain text, origin-form, credentials or a bare host', () => {
    expect(requestTarget('HTTP', 'https://api.openai.com/v1')).toBeUndefined();
    expect(requestTarget('HTTP', '/v1/chat')).toBeUndefined();
    expect(requestTarget('HTTP', 'http://user:pw@example.com/')).toBeUndefined();
    expect(requestTarget('HTTP', 'ftp://example.com/')).toBeUndefined();
    expect(requestTarget('CONNECT', 'api.openai.com')).toBeUndefined();
  });
});

describe('allowList', () => {
  const allowed = allowList(['api.anthropic.com:443', '127.0.0.1:8080']);
  const at = (host: string, port: number) => allowed({ host, port });

  it('matches the exact host and port only', () => {
    expect(at('api.anthropic.com', 443)).toBe(true);
    expect(at('127.0.0.1', 8080)).toBe(true);
    expect(at('api.anthropic.com', 80)).toBe(false);
    expect(at('127.0.0.1', 8081)).toBe(false);
    expect(at('evil.api.anthropic.com', 443)).toBe(false);
    expect(at('api.anthropic.com.evil.example', 443)).toBe(false);
    expect(at('anthropic.com', 443)).toBe(false);
    expect(at('localhost', 8080)).toBe(false);
  });

  it('compares names case-insensitively through requestTarget', () => {
    expect(allowed(requestTarget('CONNECT', 'API.ANTHROPIC.COM.:443')!)).toBe(true);
  });

  it('refuses a malformed entry', () => {
    expect(() => allowList(['api.anthropic.com'])).toThrow(UserError);
  });
});

describe('decisionLines', () => {
  it('merges alike decisions with a count, in first-seen order', () => {
    expect(
      decisionLines([
        { kind: 'Allowed', via: 'CONNECT', target: 'a.example:443', atMs: 1 },
        {
          kind: 'Denied',
          via: 'HTTP',
          target: 'b.example:80',
          reason: 'not on the allow-list',
          atMs: 2,
        },
        { kind: 'Allowed', via: 'CONNECT', target: 'a.example:443', atMs: 3 },
        {
          kind: 'Unreachable',
          via: 'CONNECT',
          target: 'a.example:443',
          reason: 'ENOTFOUND',
          atMs: 4,
        },
        { kind: 'Cut', reason: 'byte cap of 10 reached', atMs: 5 },
      ]),
    ).toEqual([
      'Allowed CONNECT a.example:443 ×2',
      'Denied HTTP b.example:80 (not on the allow-list)',
      'Unreachable CONNECT a.example:443 (ENOTFOUND)',
      'Cut (byte cap of 10 reached)',
    ]);
  });
});

/** The network interfaces the sandbox's namespace holds (/sys is not mounted inside). */
const LINKS = `echo "links: $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ' ')"`;

/** A local HTTP server answering `hello from <name>` to every request. */
async function upstream(name: string): Promise<{ server: Server; port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    hits.push(`${request.method} ${request.url}`);
    response.end(`hello from ${name}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as net.AddressInfo).port, hits };
}

let dir: string;
let first: Awaited<ReturnType<typeof upstream>>;
let second: Awaited<ReturnType<typeof upstream>>;
const closers: (() => Promise<void>)[] = [];

beforeEach(async () => {
  dir = await makeTempDir('egress-test');
  first = await upstream('first');
  second = await upstream('second');
});

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const { server } of [first, second]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await removeTree(dir);
});

async function proxyFor(
  endpoints: readonly string[],
  limits?: Partial<EgressLimits>,
): Promise<EgressProxy> {
  const proxy = await startEgressProxy({
    socketPath: path.join(dir, 'proxy.sock'),
    endpoints,
    ...(limits ? { limits } : {}),
  });
  closers.push(() => proxy.close());
  return proxy;
}

/** Sends `text` over a new connection to the proxy's socket and reads until it closes. */
function exchange(proxy: EgressProxy, text: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(proxy.socketPath);
    let received = '';
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no end: ${received}`)));
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(text);
  });
}

const tunnelled = (port: number) =>
  `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n` +
  `GET /through-tunnel HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;

describe('startEgressProxy', () => {
  it('tunnels CONNECT to an allow-listed endpoint and answers 403 to another', async () => {
    const proxy = await proxyFor([`127.0.0.1:${first.port}`]);
    const allowed = await exchange(proxy, tunnelled(first.port));
    expect(allowed).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK/);
    expect(allowed).toContain('hello from first');
    const denied = await exchange(proxy, tunnelled(second.port));
    expect(denied).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    expect(second.hits).toEqual([]);
    expect(first.hits).toEqual(['GET /through-tunnel']);
    expect(proxy.decisions()).toMatchObject([
      { kind: 'Allowed', via: 'CONNECT', target: `127.0.0.1:${first.port}` },
      {
        kind: 'Denied',
        via: 'CONNECT',
        target: `127.0.0.1:${second.port}`,
        reason: 'not on the allow-list',
      },
    ]);
    expect(proxy.bytes()).toBeGreaterThan(0);
  });

  it('forwards a plain-HTTP absolute URI to an allow-listed endpoint only', async () => {
    const proxy = await proxyFor([`127.0.0.1:${first.port}`]);
    const request = (port: number) =>
      `GET http://127.0.0.1:${port}/v1/models?x=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      `Proxy-Authorization: Basic c2VjcmV0\r\nConnection: close\r\n\r\n`;
    expect(await exchange(proxy, request(first.port))).toContain('hello from first');
    expect(first.hits).toEqual(['GET /v1/models?x=1']);
    expect(await exchange(proxy, request(second.port))).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    // Neither https in plain text nor a request for the proxy itself goes anywhere.
    const https = `GET https://127.0.0.1:${first.port}/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
    expect(await exchange(proxy, https)).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    const origin = 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
    expect(await exchange(proxy, origin)).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    expect(second.hits).toEqual([]);
    expect(first.hits).toHaveLength(1);
    expect(proxy.decisions().map((decision) => decision.kind)).toEqual([
      'Allowed',
      'Denied',
      'Denied',
      'Denied',
    ]);
  });

  it('answers 502 and records an allowed endpoint that cannot be reached', async () => {
    const closed = await upstream('closed');
    await new Promise((resolve) => closed.server.close(resolve));
    const proxy = await proxyFor([`127.0.0.1:${closed.port}`]);
    expect(await exchange(proxy, tunnelled(closed.port))).toMatch(/^HTTP\/1\.1 502/);
    expect(proxy.decisions()).toMatchObject([
      { kind: 'Allowed' },
      { kind: 'Unreachable', target: `127.0.0.1:${closed.port}` },
    ]);
  });

  it('caps connections open at once', async () => {
    const proxy = await proxyFor([`127.0.0.1:${first.port}`], { maxConnections: 1 });
    const held = net.connect(proxy.socketPath);
    const established = new Promise<void>((resolve) => held.once('data', () => resolve()));
    held.write(`CONNECT 127.0.0.1:${first.port} HTTP/1.1\r\n\r\n`);
    await established;
    try {
      expect(await exchange(proxy, tunnelled(first.port))).toMatch(/^HTTP\/1\.1 403/);
      expect(proxy.decisions()[1]).toMatchObject({
        kind: 'Denied',
        reason: '1 connections already open',
      });
    } finally {
      held.destroy();
    }
  });

  it('cuts every connection at the byte cap and denies later ones', async () => {
    const proxy = await proxyFor([`127.0.0.1:${first.port}`], { maxBytes: 64 });
    const cutShort = await exchange(proxy, tunnelled(first.port));
    expect(cutShort).not.toContain('hello from first');
    expect(await exchange(proxy, tunnelled(first.port))).toMatch(/^HTTP\/1\.1 403/);
    expect(proxy.decisions().map((decision) => decision.kind)).toEqual([
      'Allowed',
      'Cut',
      'Denied',
    ]);
  });

  it('keeps at most maxDecisions and counts the rest', async () => {
    const proxy = await proxyFor([], { maxDecisions: 2 });
    await exchange(proxy, tunnelled(first.port));
    const mark = proxy.mark();
    for (let i = 0; i < 3; i++) await exchange(proxy, tunnelled(first.port));
    expect(proxy.decisions()).toHaveLength(2);
    expect(proxy.unrecorded()).toBe(2);
    expect(proxy.linesSince(mark)).toEqual([
      `Denied CONNECT 127.0.0.1:${first.port} (not on the allow-list)`,
      '2 more decisions, not kept (cap of 2)',
    ]);
  });
});

describe('a sandbox with an allow-list', () => {
  async function sandboxFor(network?: { kind: 'allow'; endpoints: string[] }): Promise<Sandbox> {
    const workspace = path.join(dir, 'workspace');
    await mkdir(workspace);
    const sandbox = await createSandbox({ workspace, ...(network ? { network } : {}) });
    closers.push(() => sandbox.dispose());
    return sandbox;
  }

  function inside(sandbox: Sandbox, script: string): Promise<RunResult> {
    const wrapped = sandbox.wrap('/bin/sh', ['-c', script], sandbox.policy.workspace);
    return runProcess(wrapped.file, wrapped.args, {
      cwd: wrapped.cwd,
      env: sandbox.env(),
      timeoutMs: 30_000,
    });
  }

  it('reaches the allow-listed host endpoint through the proxy, and nothing else', async () => {
    const sandbox = await sandboxFor({ kind: 'allow', endpoints: [`127.0.0.1:${first.port}`] });
    const curl = 'curl -sS --max-time 5 -o - -w " %{http_code}\\n"';
    const run = await inside(
      sandbox,
      [
        `echo "proxy: $HTTPS_PROXY"`,
        `${curl} http://127.0.0.1:${first.port}/plain`,
        `${curl} --proxytunnel http://127.0.0.1:${first.port}/tunnel`,
        `curl -sS --max-time 5 -o /dev/null -w "%{http_code}\\n" http://127.0.0.1:${second.port}/plain`,
        `curl -sS --max-time 5 --proxytunnel http://127.0.0.1:${second.port}/tunnel 2>&1 | grep -o 'response 403'`,
        // Without the proxy: the host's loopback is not this namespace's.
        `curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:${first.port}/direct 2>/dev/null || echo direct-failed`,
        LINKS,
        `ip -o link | awk '{print $2}'`,
        `touch /run/witnessgym-egress/planted 2>/dev/null && echo planted; true`,
      ].join('\n'),
    );
    expect(run.stderr).toBe('');
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toBe(`proxy: http://127.0.0.1:${EGRESS_PORT}`);
    expect(lines[1]).toBe('hello from first');
    expect(lines[2]).toBe(' 200');
    expect(lines[3]).toBe('hello from first');
    expect(lines[4]).toBe(' 200');
    expect(lines[5]).toBe('403');
    expect(lines[6]).toBe('response 403'); // curl: CONNECT tunnel failed, response 403
    expect(lines[7]).toBe('direct-failed');
    expect(lines[8]).toBe('links: lo ');
    expect(lines[9]).toBe('lo:');
    expect(lines.slice(10)).toEqual([]);
    expect(first.hits).toEqual(['GET /plain', 'GET /tunnel']);
    expect(second.hits).toEqual([]);
    expect(sandbox.egress?.decisions().map((d) => `${d.kind} ${'via' in d ? d.via : ''}`)).toEqual([
      'Allowed HTTP',
      'Allowed CONNECT',
      'Denied HTTP',
      'Denied CONNECT',
    ]);
    // The relay went with the sandbox's pid namespace.
    const left = await runProcess('pgrep', ['-f', 'witnessgym-egress/relay.mjs']);
    expect(left.stdout).toBe('');
  });

  it('without one: no proxy, no relay, no route to the host', async () => {
    const sandbox = await sandboxFor();
    expect(sandbox.egress).toBeUndefined();
    const run = await inside(
      sandbox,
      [
        'env | grep -i _proxy; test -e /run/witnessgym-egress && echo relay-dir',
        `curl -sS --max-time 5 http://127.0.0.1:${first.port}/ 2>/dev/null || echo failed`,
        LINKS,
      ].join('\n'),
    );
    expect(run.stdout).toBe('failed\nlinks: lo \n');
    expect(first.hits).toEqual([]);
  });

  it("puts a command agent's egress decisions, this run's only, at the end of its transcript", async () => {
    const sandbox = await sandboxFor({ kind: 'allow', endpoints: [`127.0.0.1:${first.port}`] });
    const run = (command: string) =>
      createCommandAdapter({ command }).run({
        workspace: sandbox.policy.workspace,
        systemPrompt: 'SYSTEM',
        userPrompt: 'PAYLOAD',
        replayCommand: 'true',
        timeoutMs: 30_000,
        log: () => {},
        sandbox,
      });
    const curl = (port: number) => `curl -s -o /dev/null http://127.0.0.1:${port}/`;
    const firstRun = await run(`${curl(first.port)}; ${curl(first.port)}; ${curl(second.port)}`);
    expect(firstRun.transcript).toMatch(
      new RegExp(
        `\\n\\[egress\\]\\nAllowed HTTP 127\\.0\\.0\\.1:${first.port} ×2\\n` +
          `Denied HTTP 127\\.0\\.0\\.1:${second.port} \\(not on the allow-list\\)\\n$`,
      ),
    );
    const secondRun = await run('true');
    expect(secondRun.transcript).toMatch(/\n\[egress\]\nno connection asked for\n$/);
  });

  it('keeps the exit code and stdin of the wrapped command', async () => {
    const sandbox = await sandboxFor({ kind: 'allow', endpoints: [] });
    const wrapped = sandbox.wrap('/bin/sh', ['-c', 'cat; exit 7'], sandbox.policy.workspace);
    const run = await runProcess(wrapped.file, wrapped.args, {
      cwd: wrapped.cwd,
      env: sandbox.env(),
      input: 'from stdin\n',
      timeoutMs: 30_000,
    });
    expect(run.stdout).toBe('from stdin\n');
    expect(run.exitCode).toBe(7);
  });
});
