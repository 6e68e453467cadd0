/**
 * The baseline of the host's benches, in a process of its own as the host is: a plain
 * `ws` server with no encryption, no schema and no database. Run as
 * `node dist/bench/plain-ws-process.js <file>`; it prints `port <n>` once listening.
 * Each text frame is a JSON request `{t:"req", id, op, args}`:
 *
 * - `write`: writes the args as one line into `<file>` and `fdatasync`s it (one sync, as
 *   the host's acknowledged command; the file is allocated beforehand and written in a
 *   ring, as SQLite reuses its WAL, so the sync never has a file size to record), sends
 *   every other socket an `events` frame holding one event, then answers the sender;
 * - `echo`: answers with a `result` padded so the answer's frame is `args.bytes` long (a
 *   same-size answer to compare the host's requests with).
 */
import { closeSync, fdatasyncSync, fsyncSync, openSync, writeSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

interface Request {
  t: 'req';
  id: string;
  op: 'write' | 'echo';
  args: { bytes?: number } & Record<string, unknown>;
}

const file = process.argv[2];
if (file === undefined) throw new Error('usage: plain-ws-process.js <file to fsync>');
const RING_BYTES = 4 * 1024 * 1024;
const LINE_BYTES = 4096;
const fd = openSync(file, 'w');
writeSync(fd, Buffer.alloc(RING_BYTES));
fsyncSync(fd);
let seq = 0;
const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
const sockets = new Set<WebSocket>();
/** Padding for an answer of `bytes`, found once per size. */
const pads = new Map<number, number>();

/** A request as the bench sends it, checked by hand (a plain server would check as much). */
function readRequest(value: unknown): Request {
  const { t, id, op, args } = (value ?? {}) as Record<string, unknown>;
  if (t !== 'req' || typeof id !== 'string' || (op !== 'write' && op !== 'echo')) {
    throw new Error('not a request of the bench');
  }
  if (typeof args !== 'object' || args === null) throw new Error('a request without args');
  return { t, id, op, args: args as Request['args'] };
}

function echo(request: Request): string {
  const bytes = request.args.bytes ?? 0;
  let pad = pads.get(bytes);
  if (pad === undefined) {
    const bare = JSON.stringify({ t: 'res', id: request.id, ok: true, result: { pad: '' } });
    pad = Math.max(0, bytes - bare.length);
    pads.set(bytes, pad);
  }
  return JSON.stringify({ t: 'res', id: request.id, ok: true, result: { pad: 'x'.repeat(pad) } });
}

server.on('connection', (socket) => {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
  socket.on('message', (data: Buffer) => {
    const request = readRequest(JSON.parse(data.toString()));
    if (request.op === 'echo') {
      socket.send(echo(request));
      return;
    }
    seq++;
    const line = JSON.stringify({ seq, ...request.args }) + '\n';
    writeSync(fd, line, (seq * LINE_BYTES) % RING_BYTES);
    fdatasyncSync(fd);
    const event = { seq, type: 'run.queued', at: Date.now(), payload: request.args };
    const frame = JSON.stringify({ t: 'events', sub: 's1', events: [event] });
    for (const other of sockets) if (other !== socket) other.send(frame);
    socket.send(JSON.stringify({ t: 'res', id: request.id, ok: true, result: { seq } }));
  });
});
server.on('listening', () => {
  console.log(`port ${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => {
  server.close();
  for (const socket of sockets) socket.terminate();
  closeSync(fd);
  process.exit(0);
});
