/**
 * The host's proxy to an agent's hosts (host/sandbox/network-proxy.ts) against a hostile
 * client and hostile hosts, on its real unix socket: an answer it cannot pass on fails the
 * request and never throws in the host, one connection cannot open hosts' connections
 * without end, the host it forwards to is told its own name, and closing the proxy cuts
 * the hosts' side too.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHostPattern } from '../../host/sandbox/network-hosts.js';
import { NetworkProxy } from '../../host/sandbox/network-proxy.js';
import { tempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';

/** A host on loopback that reads each request's head and answers what `reply` says. */
class RawHost {
  readonly heads: string[] = [];
  readonly sockets = new Set<Socket>();
  private server!: Server;

  constructor(private readonly reply: (head: string) => string | null) {}

  async start(): Promise<number> {
    this.server = createServer((socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
      let head = '';
      socket.on('data', (data) => {
        head += String(data);
        if (!head.includes('\r\n\r\n')) return;
        this.heads.push(head);
        const answer = this.reply(head);
        if (answer !== null) socket.end(answer);
        head = '';
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  }

  close(): void {
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
  }
}

/** Sends `text` to the proxy at `socket` and resolves with all it answered. */
function exchange(socketPath: string, text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(socketPath, () => socket.write(text));
    let got = '';
    socket.on('data', (data) => (got += String(data)));
    socket.on('error', () => resolve(got));
    socket.on('close', () => resolve(got));
  });
}

/** A plain-HTTP request for `path` on the host at `port`, the last on its connection. */
const get = (port: number, path: string, last = true) =>
  `GET http://localhost:${port}${path} HTTP/1.1\r\nhost: localhost:${port}\r\n` +
  `${last ? 'connection: close\r\n' : ''}\r\n`;

describe("the host's proxy against hostile clients and hosts", () => {
  const folder = tempDir('tether-proxy-');
  const socketPath = join(folder.path, 'proxy');
  let proxy: NetworkProxy;
  let port: number;
  const host = new RawHost((head) => {
    const path = head.split(' ')[1] ?? '';
    if (path.endsWith('/trailer')) {
      return 'HTTP/1.1 200 OK\r\ntrailer: x-checksum\r\ncontent-length: 2\r\n\r\nhi';
    }
    if (path.endsWith('/status-99')) return 'HTTP/1.1 099 Odd\r\ncontent-length: 2\r\n\r\nhi';
    if (path.endsWith('/hang')) return null;
    return 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok';
  });

  beforeAll(async () => {
    port = await host.start();
    proxy = await NetworkProxy.start(
      [parseHostPattern(`localhost:${port}`)!],
      { socket: socketPath },
      () => undefined,
    );
  });

  afterAll(() => {
    proxy.close();
    host.close();
    folder[Symbol.dispose]();
  });

  it('an answer it cannot pass on as it came is a 502, and the host goes on', async () => {
    // Node refuses to write either as it came (the host process died of it once).
    const odd = await exchange(socketPath, get(port, '/status-99'));
    expect(odd).toMatch(/^HTTP\/1\.1 502 Bad Gateway\r\n/);
    expect(odd).toContain(`tether: cannot reach localhost:${port}: an answer with status 99`);
    const trailer = await exchange(socketPath, get(port, '/trailer'));
    expect(trailer).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*hi$/);
    expect(trailer).not.toMatch(/\r\ntrailer:/i);
    expect(await exchange(socketPath, get(port, '/fine'))).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*ok$/);
  });

  it("tells the host its own name, whatever the request's Host said", async () => {
    await exchange(
      socketPath,
      `GET http://localhost:${port}/who HTTP/1.1\r\nhost: other.example\r\nconnection: close\r\n\r\n`,
    );
    const head = host.heads.at(-1) ?? '';
    expect(head).toMatch(new RegExp(`\\r\\nhost: localhost:${port}\\r\\n`, 'i'));
    expect(head).not.toMatch(/other\.example/i);
  });

  it('a connection gets one request: those pipelined after it are refused, not sent', async () => {
    const before = host.heads.length;
    const pipelined = Array.from({ length: 50 }, (_, i) => get(port, `/p${i}`, i === 49)).join('');
    const answer = await exchange(socketPath, pipelined);
    expect(answer.startsWith('HTTP/1.1 200 OK')).toBe(true);
    expect(answer).toContain('HTTP/1.1 503 Service Unavailable');
    expect(host.heads.length - before).toBe(1);
  });

  it('closing the proxy cuts the hosts side of a request still waiting', async () => {
    const waiting = connect(socketPath, () => waiting.write(get(port, '/hang', false)));
    waiting.on('error', () => undefined);
    await until(
      'the host holding the request',
      () => host.sockets.size,
      (open) => open === 1,
    );
    proxy.close();
    await until(
      'the host side closed',
      () => host.sockets.size,
      (open) => open === 0,
    );
    waiting.destroy();
  });
});
