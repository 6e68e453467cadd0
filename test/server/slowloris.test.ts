/**
 * Issue 11, finding 6: before any upgrade, sockets that send their headers a byte at a
 * time are closed once the header timeout passes, and no more than the per-address cap
 * of them are held open at once; the host serves a normal request meanwhile.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLimitedHost, type LimitedHost } from './limited-host.js';

const PER_ADDRESS = 20;
// Bounds far apart, so a loaded machine cannot blur which one closed a socket.
const HEADERS_TIMEOUT_MS = 2_500;
const REQUEST_TIMEOUT_MS = 10_000;

let harness: LimitedHost;

beforeAll(async () => {
  harness = await startLimitedHost({
    httpLimits: {
      connectionsPerAddress: PER_ADDRESS,
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
    },
  });
});

afterAll(async () => harness.dispose());

interface Loris {
  socket: Socket;
  closedAt: number | null;
}

/** A socket that starts a request and then sends one more header byte every 50 ms. */
function slowloris(port: number): Promise<Loris> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const loris: Loris = { socket, closedAt: null };
    let drip: NodeJS.Timeout | undefined;
    socket.on('error', () => undefined);
    socket.once('close', () => {
      loris.closedAt = Date.now();
      clearInterval(drip);
    });
    socket.once('connect', () => {
      socket.write('GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      drip = setInterval(() => socket.write('a'), 50);
      resolve(loris);
    });
  });
}

describe('issue 11: slowloris sockets cannot hold the host before the upgrade', () => {
  it('are capped per address and closed after the header timeout, while the host still serves', async () => {
    const port = Number(new URL(harness.host.url).port);
    const started = Date.now();
    const lorises = await Promise.all(Array.from({ length: 200 }, () => slowloris(port)));
    // Past the cap, sockets are closed at once, long before the header timeout.
    await expect
      .poll(() => lorises.filter((loris) => loris.closedAt === null).length, {
        timeout: HEADERS_TIMEOUT_MS / 2,
        // The cap closes sockets as they come, well before the header timeout.
        interval: 10,
      })
      .toBeLessThanOrEqual(PER_ADDRESS);
    expect(lorises.filter((loris) => loris.closedAt === null).length).toBeGreaterThan(0);
    // The rest once their headers have not arrived in time, however they drip.
    await expect
      .poll(() => lorises.every((loris) => loris.closedAt !== null), {
        timeout: REQUEST_TIMEOUT_MS,
      })
      .toBe(true);
    const slowest = Math.max(...lorises.map((loris) => loris.closedAt! - started));
    expect(slowest).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    // Closed by the header timeout (checked every 625 ms here), not the request timeout.
    expect(slowest).toBeLessThan(REQUEST_TIMEOUT_MS - 2_000);
    const health = await fetch(`${harness.host.url}/v1/health`);
    expect(health.status).toBe(200);
  });

  it('the cap counts open sockets, not sockets ever opened: places come back as sockets close', async () => {
    const port = Number(new URL(harness.host.url).port);
    for (let round = 0; round < 3; round++) {
      const lorises = await Promise.all(Array.from({ length: PER_ADDRESS }, () => slowloris(port)));
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The first test's fetch may still hold one place with a kept-alive connection.
      const open = lorises.filter((loris) => loris.closedAt === null).length;
      expect(open).toBeGreaterThanOrEqual(PER_ADDRESS - 1);
      for (const loris of lorises) loris.socket.destroy();
      await expect
        .poll(() => lorises.every((loris) => loris.closedAt !== null), { timeout: 1_000 })
        .toBe(true);
    }
  });
});
