/**
 * What a user's write costs through a real command (issue 26): the real host in its own
 * process (bench/host-process.ts) with a session kept busy by a run whose model never
 * answers; device A submits runs into that session one at a time, device B is subscribed,
 * and each write counts from A's send until B holds the `run.queued` it caused. Beside it,
 * in the same rounds, the baseline in a process of its own (bench/plain-ws-process.ts):
 * a plain `ws` server that fsyncs each write once and sends it on to the other socket.
 *
 * Also, warm requests on the open channel against the same baseline answering with frames
 * of the same size: `host.info`, and `runs.list {limit: 1}`, 1,000 a round, one host
 * request and one baseline request in turn, on a host at rest after the writes; their
 * round trips and each process's CPU per request.
 *
 * The devices are lean (bench/lean-channel.ts): raw sockets, libsodium frames, no client
 * core, so the figures are the host's. CPU is the whole process (all threads,
 * /proc/<pid>/task/∗/schedstat), per delivered event and per warm request: the host's and
 * the baseline's.
 * The writes are measured twice: with the scheduler free (as the issue's anchor was taken),
 * then with both servers on one core and the devices on another (bench/cpu-pinning.ts),
 * as are the warm requests. Rounds alternate host and baseline; figures are medians of the rounds' medians (p50) and
 * the p99 of every sample. Linux only.
 *
 *   npm run bench:delivery
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { commandId, LeanChannel, pairDevice } from './lean-channel.js';
import { pinClientAndServers } from './cpu-pinning.js';
import { hostCpuNs, startHostProcess } from './host-process.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 9);
/** Writes a round; the runs they queue are cancelled after it, so the queue stays short. */
const WRITES = 20;
const REQUESTS = 1000;
/** How long the host rests between the writes and the warm requests. */
const REST_MS = 2000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}
const median = (values: number[]) => percentile(values, 50);

const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-delivery-')));

/** A model that takes requests and never answers: the first run keeps its session busy. */
const stalled = createServer(() => undefined);
await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
const modelUrl = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}/v1`;

const host = await startHostProcess({
  home: join(root, 'host'),
  config: { power: { keepAwake: 'never' } },
  env: {
    TETHER_MODEL_BASE_URL: modelUrl,
    TETHER_MODEL: 'bench',
    TETHER_MODEL_API_KEY: 'sk-b',
  },
});
const writer = await LeanChannel.open(await pairDevice(host.url, await host.pairLink()));
const reader = await LeanChannel.open(await pairDevice(host.url, await host.pairLink()));

/** The baseline: its process, and two plain sockets. */
const baselineChild = spawn(
  process.execPath,
  [new URL('plain-ws-process.js', import.meta.url).pathname, join(root, 'baseline.log')],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const baselinePort = await new Promise<number>((resolve) => {
  baselineChild.stdout.on('data', (chunk: Buffer) => {
    const match = /port (\d+)/.exec(chunk.toString());
    if (match) resolve(Number(match[1]));
  });
});

/** A plain socket answering requests in order, with a listener for `events` frames. */
async function plainSocket() {
  const socket = new WebSocket(`ws://127.0.0.1:${baselinePort}`);
  await new Promise((resolve) => socket.once('open', resolve));
  const waiting = new Map<string, () => void>();
  let onEvents: () => void = () => undefined;
  let nextId = 1;
  socket.on('message', (data: Buffer) => {
    const message: unknown = JSON.parse(data.toString());
    const { t, id } = message as Record<string, unknown>;
    if (t === 'events') onEvents();
    else if (typeof id === 'string') waiting.get(id)?.();
  });
  return {
    request(op: string, args: object): Promise<void> {
      const id = String(nextId++);
      const done = new Promise<void>((resolve) => waiting.set(id, resolve));
      socket.send(JSON.stringify({ t: 'req', id, op, args }));
      return done;
    },
    set onEvents(listener: () => void) {
      onEvents = listener;
    },
    close: () => socket.close(),
  };
}
const plainWriter = await plainSocket();
const plainReader = await plainSocket();

interface Sample {
  times: number[];
  cpuPerEvent: number;
}

/** One write: from `send` until the reader's next event; resolves with ms. */
function timeWrite(
  setListener: (listener: () => void) => void,
  send: () => Promise<unknown>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let delivered = 0;
    let answered = false;
    const settle = () => {
      if (delivered > 0 && answered) resolve(delivered - started);
    };
    setListener(() => {
      if (delivered === 0) delivered = performance.now();
      settle();
    });
    send().then(() => {
      answered = true;
      settle();
    }, reject);
  });
}

const pid = host.pid;
const baselinePid = baselineChild.pid!;
let readerEvents = 0;
reader.onEvents = (events) => (readerEvents += events.length);
await reader.request('subscribe', {});
const busy = (await writer.request('run.submit', {
  commandId: commandId(),
  input: { text: 'a run that keeps its session busy' },
})) as { sessionId: string };
await sleep(500);

async function hostWrites(): Promise<Sample> {
  const times: number[] = [];
  const runIds: string[] = [];
  const eventsBefore = readerEvents;
  const cpuBefore = hostCpuNs(pid);
  for (let index = 0; index < WRITES; index++) {
    times.push(
      await timeWrite(
        (listener) => {
          reader.onEvents = (events) => {
            readerEvents += events.length;
            if (events.some((event) => event.type === 'run.queued')) listener();
          };
        },
        async () => {
          const result = (await writer.request('run.submit', {
            commandId: commandId(),
            sessionId: busy.sessionId,
            input: { text: `write ${index}` },
          })) as { runId: string };
          runIds.push(result.runId);
        },
      ),
    );
  }
  const cpu = hostCpuNs(pid) - cpuBefore;
  const delivered = readerEvents - eventsBefore;
  reader.onEvents = (events) => (readerEvents += events.length);
  for (const runId of runIds) {
    await writer.request('run.cancel', { commandId: commandId(), runId });
  }
  await sleep(50);
  return { times, cpuPerEvent: cpu / 1000 / delivered };
}

async function baselineWrites(): Promise<Sample> {
  const times: number[] = [];
  const cpuBefore = hostCpuNs(baselinePid);
  for (let index = 0; index < WRITES; index++) {
    times.push(
      await timeWrite(
        (listener) => (plainReader.onEvents = listener),
        () =>
          plainWriter.request('write', {
            sessionId: busy.sessionId,
            input: { text: `write ${index}` },
          }),
      ),
    );
  }
  return { times, cpuPerEvent: (hostCpuNs(baselinePid) - cpuBefore) / 1000 / WRITES };
}

/**
 * `REQUESTS` warm requests of `op` on the host and as many same-size ones on the baseline,
 * one of each in turn, so that both meet the machine in the same state (one side's hundred
 * after the other's had put the second on cores the first had kept awake).
 */
async function requests(op: string, args: object): Promise<Requests> {
  const hostTimes: number[] = [];
  const plainTimes: number[] = [];
  let pad = '';
  let bytes = 0;
  // Each process is idle while the other answers: its CPU over the loop is its own work.
  const hostCpuBefore = hostCpuNs(pid);
  const plainCpuBefore = hostCpuNs(baselinePid);
  for (let index = 0; index < REQUESTS; index++) {
    const started = performance.now();
    await writer.request(op, args);
    hostTimes.push(performance.now() - started);
    if (index === 0) {
      bytes = writer.receivedBytes;
      const bare = JSON.stringify({ t: 'req', id: '1', op: 'echo', args: { bytes, pad: '' } });
      pad = 'x'.repeat(Math.max(0, writer.sentBytes - bare.length));
    }
    const plainStarted = performance.now();
    await plainWriter.request('echo', { bytes, pad });
    plainTimes.push(performance.now() - plainStarted);
  }
  return {
    hostTimes,
    plainTimes,
    hostCpu: (hostCpuNs(pid) - hostCpuBefore) / 1000 / REQUESTS,
    plainCpu: (hostCpuNs(baselinePid) - plainCpuBefore) / 1000 / REQUESTS,
  };
}

/** Warm requests of one kind: round trips (ms) and CPU per request (µs) of each side. */
interface Requests {
  hostTimes: number[];
  plainTimes: number[];
  hostCpu: number;
  plainCpu: number;
}

/** Write rounds, host and baseline in turn: each side's times and CPU per event. */
async function writeRounds() {
  const rounds = {
    hostTimes: [] as number[][],
    plainTimes: [] as number[][],
    hostCpu: [] as number[],
    plainCpu: [] as number[],
  };
  for (let round = 0; round < ROUNDS; round++) {
    const hostSample = await hostWrites();
    const plainSample = await baselineWrites();
    rounds.hostTimes.push(hostSample.times);
    rounds.plainTimes.push(plainSample.times);
    rounds.hostCpu.push(hostSample.cpuPerEvent);
    rounds.plainCpu.push(plainSample.cpuPerEvent);
  }
  return rounds;
}

const rows = {
  hostInfo: [] as number[][],
  plainInfo: [] as number[][],
  hostList: [] as number[][],
  plainList: [] as number[][],
  hostInfoCpu: [] as number[],
  plainInfoCpu: [] as number[],
  hostListCpu: [] as number[],
  plainListCpu: [] as number[],
};
try {
  // Warm both sides up: the host's first commands compile its code paths.
  await hostWrites();
  await baselineWrites();
  await requests('host.info', {});
  await requests('runs.list', { limit: 1 });
  // First with the scheduler free, as the anchor (HAPI's CPU per event) was taken.
  const free = await writeRounds();
  // Then the client on one core and both servers on the other (bench/cpu-pinning.ts).
  const pinning = pinClientAndServers([host.pid, baselineChild.pid!]);
  const pinned = await writeRounds();
  // Warm requests on a host at rest: what the writes left behind (their runs' ends, the
  // WAL checkpoint, the garbage) is done before the first, as between a user's taps.
  await sleep(REST_MS);
  for (let round = 0; round < ROUNDS; round++) {
    const info = await requests('host.info', {});
    rows.hostInfo.push(info.hostTimes);
    rows.plainInfo.push(info.plainTimes);
    rows.hostInfoCpu.push(info.hostCpu);
    rows.plainInfoCpu.push(info.plainCpu);
    const list = await requests('runs.list', { limit: 1 });
    rows.hostList.push(list.hostTimes);
    rows.plainList.push(list.plainTimes);
    rows.hostListCpu.push(list.hostCpu);
    rows.plainListCpu.push(list.plainCpu);
  }
  const p50 = (rounds: number[][]) => median(rounds.map((times) => median(times)));
  const p99 = (rounds: number[][]) => percentile(rounds.flat(), 99);
  const ms = (value: number) => value.toFixed(3);
  console.log(
    `delivery: ${ROUNDS} rounds of ${WRITES} writes (scheduler free, then pinned) and ` +
      `${REQUESTS} requests of each kind (pinned); host and baseline in processes of their own` +
      (pinning === undefined
        ? ''
        : `; pinned: both on core ${pinning.servers}, the client on core ${pinning.client}`),
  );
  const line = (label: string, host: string, plain: string, ratio: string) =>
    console.log(
      `${label.padEnd(50)} ${host.padStart(16)} ${plain.padStart(16)} ${ratio.padStart(7)}`,
    );
  line('measure', 'host', 'baseline', 'ratio');
  for (const [label, hostRounds, plainRounds] of [
    ['write -> delivered p50 ms, scheduler free', free.hostTimes, free.plainTimes],
    ['write -> delivered p50 ms, pinned', pinned.hostTimes, pinned.plainTimes],
    ['warm host.info round trip p50 ms, pinned', rows.hostInfo, rows.plainInfo],
    ['warm runs.list {limit:1} round trip p50 ms, pinned', rows.hostList, rows.plainList],
  ] as const) {
    const [hostP50, plainP50] = [p50(hostRounds), p50(plainRounds)];
    line(
      label,
      `${ms(hostP50)} (p99 ${ms(p99(hostRounds))})`,
      `${ms(plainP50)} (p99 ${ms(p99(plainRounds))})`,
      `${(hostP50 / plainP50).toFixed(2)}x`,
    );
  }
  for (const [label, hostCpus, plainCpus] of [
    ['CPU per delivered event µs, scheduler free', free.hostCpu, free.plainCpu],
    ['CPU per delivered event µs, pinned', pinned.hostCpu, pinned.plainCpu],
    ['CPU per warm host.info µs, pinned', rows.hostInfoCpu, rows.plainInfoCpu],
    ['CPU per warm runs.list {limit:1} µs, pinned', rows.hostListCpu, rows.plainListCpu],
  ] as const) {
    const [hostCpu, plainCpu] = [median(hostCpus), median(plainCpus)];
    line(label, hostCpu.toFixed(0), plainCpu.toFixed(0), `${(hostCpu / plainCpu).toFixed(2)}x`);
  }
  console.log(`frames: host.info answer ${writer.receivedBytes} B (last request's sizes)`);
} finally {
  await writer.close();
  await reader.close();
  plainWriter.close();
  plainReader.close();
  baselineChild.kill('SIGTERM');
  await host.stop();
  stalled.closeAllConnections();
  stalled.close();
  rmSync(root, { recursive: true, force: true });
}
