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
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, type Socket } from 'node:net';
import { hostAllowed, type HostPattern } from './network-hosts.js';

/** Connections one sandbox may hold open through the proxy at once. */
const MAX_CONNECTIONS = 64;
/** How long opening a connection to an allowed host may take. */
const CONNECT_TIMEOUT_MS = 30_000;
/** Headers about the hop to the proxy, not for the host behind it. */
const HOP_HEADERS: readonly string[] = ['proxy-connection', 'proxy-authorization', 'connection'];

/** `host:port` of a CONNECT request: a name, an IPv4 address, or `[an IPv6 address]`. */
const AUTHORITY = /^([^:[\]\s]+|\[[0-9a-f:.]+\]):(\d{1,5})$/i;

export type ProxyAddress = { socket: string } | { loopback: true };

export class NetworkProxy {
  private readonly open = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly patterns: readonly HostPattern[],
    private readonly onRefused: (target: string) => void,
  ) {
    server.maxConnections = MAX_CONNECTIONS;
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

  /** Stops listening and cuts every connection through it. */
  close(): void {
    this.server.close();
    for (const socket of this.open) socket.destroy();
  }

  private allowed(host: string, port: number): boolean {
    return port >= 1 && port <= 65_535 && hostAllowed(this.patterns, host, port);
  }

  private tunnel(request: IncomingMessage, client: Socket, head: Buffer): void {
    client.on('error', () => client.destroy());
    const target = request.url ?? '';
    const match = AUTHORITY.exec(target);
    const host = match?.[1]?.replace(/^\[|\]$/g, '') ?? '';
    const port = Number(match?.[2]);
    if (match === null || !this.allowed(host, port)) {
      this.onRefused(target);
      client.end(refusal(target));
      return;
    }
    const upstream = connect({ host, port });
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
      else client.end(statusText(502, `cannot reach ${target}: ${error.message}`));
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
    const headers = { ...request.headers };
    for (const name of HOP_HEADERS) delete headers[name];
    const upstream = httpRequest(
      { host, port, method: request.method, path: `${url.pathname}${url.search}`, headers },
      (upstreamAnswer) => {
        response.writeHead(upstreamAnswer.statusCode ?? 502, upstreamAnswer.headers);
        upstreamAnswer.pipe(response);
      },
    );
    upstream.setTimeout(CONNECT_TIMEOUT_MS, () => upstream.destroy(new Error('timed out')));
    upstream.on('error', (error) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      answer(response, 502, `tether: cannot reach ${target}: ${error.message}\n`);
    });
    request.pipe(upstream);
  }
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

function refusal(target: string): string {
  return statusText(403, refusedText(target).trimEnd());
}

/** A whole HTTP/1.1 answer with `status` and a text body, for a socket outside the server. */
function statusText(status: 403 | 502, body: string): string {
  const reason = status === 403 ? 'Forbidden' : 'Bad Gateway';
  const text = `${body}\n`;
  return (
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain\r\n` +
    `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`
  );
}
