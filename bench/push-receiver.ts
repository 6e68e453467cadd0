/**
 * The push service for bench/push.ts, in its own process so the host's CPU time is the
 * host's alone: answers every POST 201 and tells the parent (IPC) when each arrived, by
 * the wall clock both processes share (`performance.timeOrigin + performance.now()`).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    res.writeHead(201).end();
    process.send?.({ t: 'push', at, topic: req.headers['topic'] ?? '', path: req.url ?? '' });
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ t: 'ready', port: (server.address() as AddressInfo).port });
});
process.on('disconnect', () => process.exit(0));
