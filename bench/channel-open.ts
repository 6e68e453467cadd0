/**
 * A channel open as the host pays for it (issue 26): the real host in its own process
 * (bench/host-process.ts); each round pairs a fresh device, which then opens a channel,
 * asks `host.info` once and closes it, ten times: the first opens of a new device, when
 * nothing of its own is warm yet. Prints, medians of rounds:
 *
 * - the first request's round trip on each new channel (the first frame that decrypts
 *   confirms the channel: whatever the host does then, the request waits for);
 * - connect (socket, hello, welcome) until that first answer;
 * - the host's CPU per open (all its threads, /proc/<pid>/task/∗/schedstat), counted
 *   until 11 s after the round's last close, so writes the host defers (last seen is
 *   written within 10 s) are counted too, less the CPU of 11 s with nothing to do;
 * - the baseline, in the same run: a plain `ws` server in a process of its own
 *   (bench/plain-ws-process.ts), its CPU per connection that opens, asks one same-size
 *   answer and closes.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/channel-open.js
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import WebSocket from 'ws';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TetherClient } from '../remote/client/index.js';
import { nodeWebSocketFactory } from '../remote/client/node/index.js';
import { MemoryStorage } from '../remote/client/testing.js';
import { connectRemote } from './channel-host.js';
import { hostCpuNs, startHostProcess } from './host-process.js';

const ROUNDS = 5;
const OPENS = 10;
const SETTLE_MS = 11_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-channel-open-')));
const host = await startHostProcess({ home: root, config: { power: { keepAwake: 'never' } } });

/** A fresh device paired with the host: its storage. */
async function freshDevice(): Promise<MemoryStorage> {
  const storage = new MemoryStorage();
  const pairing = new TetherClient({ storage, socketFactory: nodeWebSocketFactory() });
  await pairing.pair(await host.pairLink(), { name: 'bench', platform: 'bench' });
  await pairing.close();
  return storage;
}

/** One open: connect, one `host.info`, close. Returns [connect → answer, request → answer] ms. */
async function open(storage: MemoryStorage): Promise<[number, number]> {
  const start = performance.now();
  const remote = await connectRemote(storage, host.hostId);
  const asked = performance.now();
  await remote.connection.request('host.info', {});
  const answered = performance.now();
  await remote.client.close();
  return [answered - start, answered - asked];
}

/** The baseline's process and one plain connection: open, one answer, close. */
const plain = spawn(
  process.execPath,
  [new URL('plain-ws-process.js', import.meta.url).pathname, join(root, 'baseline.log')],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const plainPort = await new Promise<number>((resolve) => {
  plain.stdout.on('data', (chunk: Buffer) => {
    const match = /port (\d+)/.exec(chunk.toString());
    if (match) resolve(Number(match[1]));
  });
});
async function plainOpen(): Promise<void> {
  const socket = new WebSocket(`ws://127.0.0.1:${plainPort}`);
  await new Promise((resolve) => socket.once('open', resolve));
  await new Promise((resolve) => {
    socket.once('message', resolve);
    socket.send(JSON.stringify({ t: 'req', id: '1', op: 'echo', args: { bytes: 700 } }));
  });
  await new Promise((resolve) => {
    socket.once('close', resolve);
    socket.close();
  });
}

try {
  for (let index = 0; index < 5; index++) await open(host.storage);
  await sleep(SETTLE_MS);
  const firstRequest: number[] = [];
  const connectToAnswer: number[] = [];
  const cpu: number[] = [];
  const plainCpu: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const storage = await freshDevice();
    await sleep(1000);
    const before = hostCpuNs(host.pid);
    for (let index = 0; index < OPENS; index++) {
      const [whole, request] = await open(storage);
      connectToAnswer.push(whole);
      firstRequest.push(request);
    }
    await sleep(SETTLE_MS);
    const busy = hostCpuNs(host.pid) - before;
    // The same time with nothing to do, taken off: timers, the GC.
    const quiet = hostCpuNs(host.pid);
    await sleep(SETTLE_MS);
    cpu.push((busy - (hostCpuNs(host.pid) - quiet)) / 1000 / OPENS);
    const plainBefore = hostCpuNs(plain.pid!);
    for (let index = 0; index < OPENS; index++) await plainOpen();
    await sleep(100);
    plainCpu.push((hostCpuNs(plain.pid!) - plainBefore) / 1000 / OPENS);
  }
  console.log(
    `channel open, ${ROUNDS} rounds of the first ${OPENS} opens of a fresh device, host in its own process`,
  );
  console.log(`${'measure'.padEnd(44)} ${'wall µs'.padStart(10)} ${'CPU µs'.padStart(10)}`);
  const row = (label: string, wall: string, cpuUs: string) =>
    console.log(`${label.padEnd(44)} ${wall.padStart(10)} ${cpuUs.padStart(10)}`);
  row('first request on a new channel', (median(firstRequest) * 1000).toFixed(0), '-');
  row('connect until the first answer', (median(connectToAnswer) * 1000).toFixed(0), '-');
  row('host CPU per open (open, request, close)', '-', median(cpu).toFixed(0));
  row('plain ws server: open, one answer, close', '-', median(plainCpu).toFixed(0));
} finally {
  plain.kill('SIGTERM');
  await host.stop();
  rmSync(root, { recursive: true, force: true });
}
