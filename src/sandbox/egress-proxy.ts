import { rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { errorMessage, UserError } from '../core/errors.js';

/*
 * The only way out of an agent's sandbox: an HTTP proxy on a Unix socket, run by the harness,
 * that opens a connection only to an allow-listed host:port. The sandbox keeps its own network
 * namespace (loopback only); a relay inside (RELAY_SCRIPT) forwards its 127.0.0.1 port to the
 * socket, which is bound read-only into the sandbox (a socket can be connected through a
 * read-only bind). Clients follow HTTPS_PROXY: CONNECT for https, an absolute URI for http.
 * Names are resolved here, on the host; the sandbox has no resolver to ask.
 */

/** A host:port the sandbox may reach. The host is lower-case, without brackets or final dot. */
export interface Endpoint {
  host: string;
  port: number;
}

export type EgressVia = 'CONNECT' | 'HTTP';

/** One decision of the proxy, in the order made; `atMs` counts from the proxy's start. */
export type EgressDecision =
  | { kind: 'Allowed'; via: EgressVia; target: string; atMs: number }
  | { kind: 'Denied'; via: EgressVia; target: string; reason: string; atMs: number }
  /** Allowed, but the upstream could not be reached (no such name, refused, timed out). */
  | { kind: 'Unreachable'; via: EgressVia; target: string; reason: string; atMs: number }
  /** The byte cap was reached: every open connection was closed, later ones are denied. */
  | { kind: 'Cut'; reason: string; atMs: number };

export interface EgressMark {
  kept: number;
  unrecorded: number;
}

export interface EgressLimits {
  /** Connections open at once. */
  maxConnections: number;
  /** Bytes carried, both directions, over the proxy's life. */
  maxBytes: number;
  /** Decisions kept; later ones are counted only. */
  maxDecisions: number;
  connectTimeoutMs: number;
}

export const DEFAULT_EGRESS_LIMITS: EgressLimits = {
  maxConnections: 32,
  maxBytes: 512 * 1024 * 1024,
  maxDecisions: 1000,
  connectTimeoutMs: 30_000,
};

export interface EgressProxy {
  socketPath: string;
  /** What the proxy decided so far (at most maxDecisions of them). */
  decisions(): readonly EgressDecision[];
  /** Decisions made beyond maxDecisions, not kept. */
  unrecorded(): number;
  /** Bytes carried so far, both directions. */
  bytes(): number;
  /** Where the record stands now, for `linesSince`. */
  mark(): EgressMark;
  /** The decisions made since `mark` as transcript lines (decisionLines), then those not kept. */
  linesSince(mark: EgressMark): string[];
  close(): Promise<void>;
}

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

/** `host:port` or `[ipv6]:port` as an endpoint, undefined when it is not one. */
function endpointOf(text: string): Endpoint | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]]+)):(\d{1,5})$/.exec(text.trim());
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65_535) return undefined;
  if (match[1] !== undefined) {
    return net.isIPv6(match[1]) ? { host: match[1].toLowerCase(), port } : undefined;
  }
  const host = match[2]!.toLowerCase().replace(/\.$/, '');
  return HOST_NAME.test(host) ? { host, port } : undefined;
}

/** Parses an allow-list entry; a malformed one is a UserError. */
export function parseEndpoint(text: string): Endpoint {
  const endpoint = endpointOf(text);
  if (!endpoint) {
    throw new UserError(
      `not an endpoint: '${text}' (expected HOST:PORT, e.g. api.anthropic.com:443 or [::1]:8080)`,
    );
  }
  return endpoint;
}

export function endpointText(endpoint: Endpoint): string {
  return endpoint.host.includes(':')
    ? `[${endpoint.host}]:${endpoint.port}`
    : `${endpoint.host}:${endpoint.port}`;
}

/** Where a proxy request asks to go: a CONNECT authority, or an http:// absolute URI. */
export function requestTarget(via: EgressVia, requestUrl: string): Endpoint | undefined {
  if (via === 'CONNECT') return endpointOf(requestUrl);
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return undefined; // origin-form: a request for the proxy itself
  }
  // https goes through CONNECT, so the proxy never sees its plain text.
  if (url.protocol !== 'http:' || url.username || url.password) return undefined;
  return endpointOf(`${url.hostname}:${url.port || 80}`);
}

/** A matcher for the allow-list: exact host and port, names compared case-insensitively. */
export function allowList(endpoints: readonly string[]): (endpoint: Endpoint) => boolean {
  const allowed = new Set(endpoints.map((text) => endpointText(parseEndpoint(text))));
  return (endpoint) => allowed.has(endpointText(endpoint));
}

/** Headers of one hop only (RFC 9110, 7.6.1), and the proxy's own. */
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

function forwardedHeaders(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const kept: http.OutgoingHttpHeaders = { ...headers };
  for (const name of HOP_BY_HOP) delete kept[name];
  return kept;
}

export interface EgressProxyOptions {
  /** The Unix socket to listen on (its directory must exist). */
  socketPath: string;
  /** Allow-listed `host:port` entries. */
  endpoints: readonly string[];
  limits?: Partial<EgressLimits>;
}

export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const isAllowed = allowList(options.endpoints);
  const limits = { ...DEFAULT_EGRESS_LIMITS, ...options.limits };
  const started = performance.now();
  const decisions: EgressDecision[] = [];
  let unrecorded = 0;
  let bytes = 0;
  let cut = false;
  /** What to destroy when the cap is reached or the proxy closes: one entry per connection. */
  const open = new Set<{ destroy(): void }>();
  const atMs = () => Math.round(performance.now() - started);
  const record = (decision: EgressDecision) => {
    if (decisions.length < limits.maxDecisions) decisions.push(decision);
    else unrecorded++;
  };
  const carried = (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes <= limits.maxBytes || cut) return;
    cut = true;
    record({ kind: 'Cut', reason: `byte cap of ${limits.maxBytes} reached`, atMs: atMs() });
    for (const connection of open) connection.destroy();
    open.clear();
  };
  const verdict = (
    via: EgressVia,
    endpoint: Endpoint | undefined,
  ): { kind: 'Allowed'; endpoint: Endpoint } | { kind: 'Denied'; reason: string } => {
    if (cut) return { kind: 'Denied', reason: 'byte cap reached' };
    if (!endpoint) {
      const expected = via === 'CONNECT' ? 'a host:port' : 'an http:// absolute URI';
      return { kind: 'Denied', reason: `not ${expected}` };
    }
    if (!isAllowed(endpoint)) return { kind: 'Denied', reason: 'not on the allow-list' };
    if (open.size >= limits.maxConnections) {
      return { kind: 'Denied', reason: `${limits.maxConnections} connections already open` };
    }
    return { kind: 'Allowed', endpoint };
  };
  /** The endpoint to open, or undefined; records the decision either way. */
  const admit = (via: EgressVia, requestUrl: string): Endpoint | undefined => {
    const endpoint = requestTarget(via, requestUrl);
    const target = endpoint ? endpointText(endpoint) : requestUrl.slice(0, 300);
    const decided = verdict(via, endpoint);
    if (decided.kind === 'Denied') {
      record({ kind: 'Denied', via, target, reason: decided.reason, atMs: atMs() });
      return undefined;
    }
    record({ kind: 'Allowed', via, target, atMs: atMs() });
    return decided.endpoint;
  };
  const unreachable = (via: EgressVia, endpoint: Endpoint, error: unknown) =>
    record({
      kind: 'Unreachable',
      via,
      target: endpointText(endpoint),
      reason: errorMessage(error),
      atMs: atMs(),
    });

  const server = http.createServer();
  server.on('connect', (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const endpoint = admit('CONNECT', request.url ?? '');
    if (!endpoint) {
      client.end(
        'HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n' +
          'witnessgym: this sandbox may reach only its allow-listed endpoints\n',
      );
      return;
    }
    const upstream = net.connect({ host: endpoint.host, port: endpoint.port });
    const connection = {
      destroy: () => {
        client.destroy();
        upstream.destroy();
      },
    };
    open.add(connection);
    let connected = false;
    upstream.setTimeout(limits.connectTimeoutMs, () =>
      upstream.destroy(new Error(`no connection within ${limits.connectTimeoutMs} ms`)),
    );
    upstream.once('connect', () => {
      connected = true;
      upstream.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      // Counted in the same tick as the pipes start, so no chunk flows past the count.
      client.on('data', carried);
      upstream.on('data', carried);
      if (head.length > 0) {
        carried(head);
        upstream.write(head);
      }
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (error) => {
      if (!connected) {
        unreachable('CONNECT', endpoint, error);
        client.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n');
      } else client.destroy();
    });
    client.on('error', () => upstream.destroy());
    const closed = () => {
      open.delete(connection);
      connection.destroy();
    };
    client.on('close', closed);
    upstream.on('close', closed);
  });

  server.on('request', (request, response) => {
    const endpoint = admit('HTTP', request.url ?? '');
    if (!endpoint) {
      response.writeHead(403, { 'content-type': 'text/plain', connection: 'close' });
      response.end('witnessgym: this sandbox may reach only its allow-listed endpoints\n');
      return;
    }
    const url = new URL(request.url!);
    const upstream = http.request(
      {
        host: endpoint.host,
        port: endpoint.port,
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers: { ...forwardedHeaders(request.headers), host: url.host },
        agent: false,
        timeout: limits.connectTimeoutMs,
      },
      (answer) => {
        upstream.setTimeout(0);
        response.writeHead(answer.statusCode ?? 502, forwardedHeaders(answer.headers));
        answer.on('data', carried);
        answer.pipe(response);
      },
    );
    const connection = {
      destroy: () => {
        upstream.destroy();
        response.destroy();
      },
    };
    open.add(connection);
    upstream.on('timeout', () =>
      upstream.destroy(new Error(`no answer within ${limits.connectTimeoutMs} ms`)),
    );
    upstream.on('error', (error) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      unreachable('HTTP', endpoint, error);
      response.writeHead(502, { 'content-type': 'text/plain', connection: 'close' });
      response.end(`witnessgym: ${endpointText(endpoint)} unreachable\n`);
    });
    response.on('close', () => {
      open.delete(connection);
      upstream.destroy();
    });
    request.on('data', carried);
    request.pipe(upstream);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    socketPath: options.socketPath,
    decisions: () => decisions,
    unrecorded: () => unrecorded,
    bytes: () => bytes,
    mark: () => ({ kept: decisions.length, unrecorded }),
    linesSince: (mark) => {
      const lost = unrecorded - mark.unrecorded;
      return [
        ...decisionLines(decisions.slice(mark.kept)),
        ...(lost > 0 ? [`${lost} more decisions, not kept (cap of ${limits.maxDecisions})`] : []),
      ];
    },
    close: async () => {
      for (const connection of open) connection.destroy();
      open.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(options.socketPath, { force: true });
    },
  };
}

/**
 * The relay that runs inside the sandbox (node, from /usr): listens on the sandbox's own
 * 127.0.0.1:<port> and forwards each connection to the proxy's socket; creates <ready> once
 * listening. Arguments: <socket> <port> <ready>. It prints nothing: its output is the agent's.
 */
export const RELAY_SCRIPT = `import net from 'node:net';
import { writeFileSync } from 'node:fs';
const [socketPath, port, ready] = process.argv.slice(2);
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  const drop = () => { client.destroy(); upstream.destroy(); };
  client.on('error', drop);
  upstream.on('error', drop);
  client.pipe(upstream);
  upstream.pipe(client);
});
server.listen(Number(port), '127.0.0.1', () => writeFileSync(ready, ''));
`;

/**
 * Decisions as lines for a transcript, alike ones merged with a count, in first-seen order:
 * `Allowed CONNECT api.anthropic.com:443 ×12`, `Denied HTTP example.com:80 (not on the allow-list)`.
 */
export function decisionLines(decisions: readonly EgressDecision[]): string[] {
  const counts = new Map<string, number>();
  for (const decision of decisions) {
    const line =
      decision.kind === 'Cut'
        ? `Cut (${decision.reason})`
        : decision.kind === 'Allowed'
          ? `Allowed ${decision.via} ${decision.target}`
          : `${decision.kind} ${decision.via} ${decision.target} (${decision.reason})`;
    counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return [...counts].map(([line, count]) => (count > 1 ? `${line} ×${count}` : line));
}
