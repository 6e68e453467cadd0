/**
 * The HTTP server's own bounds, before any WebSocket upgrade: short header and request
 * timeouts, and a cap on connections per address, so sockets that send headers a byte at
 * a time (slowloris) are closed soon and cannot pile up.
 */
import type { ServerOptions } from 'node:http';
import type { Server as NetServer, Socket } from 'node:net';
import type { Logger } from '../log/index.js';
import { RefusalLog } from './refusal-log.js';
import type { HttpLimits } from './server-limits.js';

/** Options for `http.createServer` / `https.createServer` that enforce `limits`' timeouts. */
export function httpServerOptions(limits: HttpLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs),
    // Node checks both timeouts on this interval (30 s by default), so it bounds their precision.
    connectionsCheckingInterval: Math.max(50, Math.min(1000, limits.headersTimeoutMs / 4)),
  };
}

/**
 * Caps the TCP connections open at once from one address (a socket upgraded to a channel
 * still counts): one more is destroyed at once, logged once per address per interval.
 * Returns a function that writes the pending refusal counts (at stop).
 */
export function guardConnections(
  server: NetServer,
  limits: HttpLimits,
  log: Logger,
  refusalLogIntervalMs?: number,
): () => void {
  const counts = new Map<string, number>();
  const refusals = new RefusalLog(log, refusalLogIntervalMs);
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const open = counts.get(address) ?? 0;
    if (open >= limits.connectionsPerAddress) {
      refusals.refused('too_many_connections', address, 'connection refused', {
        detail: `${open} connections from this address are open`,
      });
      socket.destroy();
      return;
    }
    counts.set(address, open + 1);
    socket.once('close', () => {
      const left = (counts.get(address) ?? 1) - 1;
      if (left <= 0) counts.delete(address);
      else counts.set(address, left);
    });
  });
  return () => refusals.close();
}
