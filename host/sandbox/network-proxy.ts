/**
 * The one way out of a sandbox without network for a process allowed some hosts: an HTTP
 * proxy in the host that opens a tunnel (`CONNECT host:port`, what HTTPS clients send) or
 * forwards a plain-HTTP request only to a host the list allows (./network-hosts.ts), and
 * answers anything else 403, saying which host was refused. It listens on a unix socket
 * in the call's temporary folder (bubblewrap: the process reaches it through the bridge,
 * ./network-bridge.ts) or on a loopback port, the only address a Seatbelt profile lets
 * the process reach. Names are resolved here, on the host, once allowed.
 */
import {
  Agent,
  type ClientRequest,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, type Socket } from 'node:net';
import { hostAllowed, type HostPattern } from './network-hosts.js';

/**
 * Connections one sandbox may hold open through the proxy at once, and connections the
 * proxy holds open for it to hosts: one a tunnel, one a plain-HTTP request.
 */
const MAX_CONNECTIONS = 64;
/** How long opening a connection to an allowed host may take, and a forwarded one idle. */
const CONNECT_TIMEOUT_MS = 30_000;
/** Headers about one hop (to the proxy, or from it), never passed on. */
const HOP_HEADERS: readonly string[] = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/** `host:port` of a CONNECT request: a name, an IPv4 address, or `[an IPv6 address]`. */
const AUTHORITY = /^([^:[\]\s]+|\[[0-9a-f:.]+\]):(\d{1,5})$/i;

export type ProxyAddress = { socket: string } | { loopback: true };

export class NetworkProxy {
  /** The sandbox's connections to the proxy. */
  private readonly open = new Set<Socket>();
  /** The proxy's connections to hosts, tunnels and forwarded requests. */
  private readonly upstreams = new Set<Socket | ClientRequest>();
  /** Its own connections for plain HTTP, none kept: none outlives {@link close}. */
  private readonly agent = new Agent({ keepAlive: false, maxSockets: MAX_CONNECTIONS });

  private constructor(
    private readonly server: Server,
    private readonly patterns: readonly HostPattern[],
    private readonly onRefused: (target: string) => void,
  ) {
    server.maxConnections = MAX_CONNECTIONS;
    // One request a connection: a pipelined second one is answered 503, so one connection
    // cannot open hosts' connections without end.
    server.maxRequestsPerSocket = 1;
    server.on('connection', (socket: Socket) => {
      this.open.add(socket);
      socket.once('close', () => this.open.delete(socket));
    });
    server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) =>
      this.tunnel(request, client, head),
    );
    server.on('request', (request: IncomingMessage, response: ServerResponse) =>
      this.forward(request, response),
    );
  }

  /**
   * A proxy for `patterns` listening at `address`; `onRefused` hears each refused target
   * (`host:port`, as asked). Throws what listening throws.
   */
  static async start(
    patterns: readonly HostPattern[],
    address: ProxyAddress,
    onRefused: (target: string) => void,
  ): Promise<NetworkProxy> {
    const proxy = new NetworkProxy(createServer(), patterns, onRefused);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      const listening = () => {
        proxy.server.off('error', reject);
        resolve();
      };
      if ('socket' in address) proxy.server.listen(address.socket, listening);
      else proxy.server.listen(0, '127.0.0.1', listening);
    });
    return proxy;
  }

  /** The loopback port it listens on; null on a unix socket. */
  get port(): number | null {
    const address = this.server.address();
    return typeof address === 'object' && address !== null ? address.port : null;
  }

  /** Stops listening and cuts every connection through it, both sides. */
  close(): void {
    this.server.close();
    for (const socket of this.open) socket.destroy();
    for (const upstream of this.upstreams) upstream.destroy();
    this.agent.destroy();
  }

  private allowed(host: string, port: number): boolean {
    return port >= 1 && port <= 65_535 && hostAllowed(this.patterns, host, port);
  }

  /** Counts `upstream` among the connections to hosts until it closes; `close` cuts it. */
  private hold(upstream: Socket | ClientRequest): void {
    this.upstreams.add(upstream);
    upstream.once('close', () => this.upstreams.delete(upstream));
  }

  private tunnel(request: IncomingMessage, client: Socket, head: Buffer): void {
    client.on('error', () => client.destroy());
    const target = request.url ?? '';
    const match = AUTHORITY.exec(target);
    const host = match?.[1]?.replace(/^\[|\]$/g, '') ?? '';
    const port = Number(match?.[2]);
    if (match === null || !this.allowed(host, port)) {
      this.onRefused(target);
      client.end(statusText(403, refusedText(target)));
      return;
    }
    if (this.upstreams.size >= MAX_CONNECTIONS) {
      client.end(statusText(503, busyText()));
      return;
    }
    const upstream = connect({ host, port });
    this.hold(upstream);
    let connected = false;
    upstream.setTimeout(CONNECT_TIMEOUT_MS, () => upstream.destroy(new Error('timed out')));
    upstream.once('connect', () => {
      connected = true;
      upstream.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (error) => {
      if (connected) client.destroy();
      else client.end(statusText(502, `tether: cannot reach ${target}: ${error.message}\n`));
    });
    upstream.once('close', () => client.destroy());
    client.once('close', () => upstream.destroy());
  }

  private forward(request: IncomingMessage, response: ServerResponse): void {
    const url = URL.canParse(request.url ?? '') ? new URL(request.url ?? '') : null;
    const port = url === null ? 0 : Number(url.port === '' ? 80 : url.port);
    const host = url?.hostname.replace(/^\[|\]$/g, '') ?? '';
    if (url === null || url.protocol !== 'http:') {
      answer(
        response,
        400,
        'tether: this proxy takes CONNECT host:port, or a plain-HTTP request with its full URL\n',
      );
      return;
    }
    const target = `${host}:${port}`;
    if (!this.allowed(host, port)) {
      this.onRefused(target);
      answer(response, 403, refusedText(target));
      return;
    }
    if (this.upstreams.size >= MAX_CONNECTIONS) {
      answer(response, 503, busyText());
      return;
    }
    // The host it goes to is the one allowed, whatever the request's own Host said.
    const headers: OutgoingHttpHeaders = { ...passedOn(request.headers), host: url.host };
    const upstream = httpRequest(
      {
        host,
        port,
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers,
        agent: this.agent,
      },
      (reply) => {
        const status = reply.statusCode ?? 0;
        try {
          if (status < 200 || status > 599) throw new Error(`an answer with status ${status}`);
          response.writeHead(status, passedOn(reply.headers));
        } catch (error) {
          // An answer this proxy cannot pass on as it came: the request fails, nothing throws.
          reply.destroy();
          fail(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        reply.pipe(response);
      },
    );
    let closed = false;
    const fail = (error: Error) => {
      upstream.destroy();
      if (closed) return;
      if (response.headersSent) response.destroy();
      else answer(response, 502, `tether: cannot reach ${target}: ${error.message}\n`);
    };
    this.hold(upstream);
    upstream.setTimeout(CONNECT_TIMEOUT_MS, () => upstream.destroy(new Error('timed out')));
    upstream.on('error', fail);
    // The sandbox's side gone (or answered in full): the host's side goes too.
    response.once('close', () => {
      closed = true;
      upstream.destroy();
    });
    request.pipe(upstream);
  }
}

/** `headers` without those about one hop. */
function passedOn(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const kept: OutgoingHttpHeaders = { ...headers };
  for (const name of HOP_HEADERS) delete kept[name];
  return kept;
}

/** Answers `response` with `status` and `text`, its length said (never chunked). */
function answer(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, {
    'content-type': 'text/plain',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function refusedText(target: string): string {
  return `tether: this sandbox may not reach ${target}: it is not among the hosts its config allows\n`;
}

function busyText(): string {
  return `tether: this sandbox has ${MAX_CONNECTIONS} connections open through the proxy already\n`;
}

const REASONS = { 403: 'Forbidden', 502: 'Bad Gateway', 503: 'Service Unavailable' } as const;

/** A whole HTTP/1.1 answer with `status` and a text body, for a socket outside the server. */
function statusText(status: keyof typeof REASONS, text: string): string {
  return (
    `HTTP/1.1 ${status} ${REASONS[status]}\r\ncontent-type: text/plain\r\n` +
    `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`
  );
}
