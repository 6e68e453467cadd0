/**
 * The encrypted channel end to end, with the host and its remotes in this one process so
 * one clock times both ends. Commit time is when `store.write` returns; delivery is when
 * a remote's `onEvents` sees the event (decrypted, validated, folded into its state).
 * Measures: commit-to-delivery latency next to the same events sent as plain JSON over
 * `ws`; fan-out to 10 remotes; resuming after 10,000 missed events (replay) and after
 * 1,000,000 (snapshot); the process's memory while one remote's socket reads nothing and
 * 100,000 events flow to another.
 *
 *   npm run build --silent && node dist/bench/channel.js
 */
import type { AddressInfo, Socket } from 'node:net';
import { once } from 'node:events';
import WebSocket, { WebSocketServer } from 'ws';
import { z } from 'zod';
import type { Store } from '../host/store/index.js';
import type { NewEvent } from '../protocol/index.js';
import {
  type BenchHost,
  connectRemote,
  pairRemote,
  type Remote,
  startBenchHost,
} from './channel-host.js';

/** The event every phase commits: small, as most events are. */
const EVENT: NewEvent = { type: 'run.started', sessionId: null, runId: null, payload: {} };
const ROUNDS = 5;
const LATENCY_EVENTS = 1000;
const FANOUT_REMOTES = 10;
const FANOUT_EVENTS = 300;
const FANOUT_ROUNDS = 3;
const STREAM_EVENTS = 20_000;
const STREAM_BATCH = 100;
/** How far a writer may run ahead of its slowest reader, so none is cut off with `lagged`. */
const STREAM_WINDOW = 2_000;
const STALL_EVENTS = 100_000;
const STALL_BATCH = 1_000;
const RESUMES = 5;
const APPEND_BATCH = 10_000;
const SAMPLE_MS = 20;

/** Called with the seqs a remote just received, in order. */
type Deliver = (seqs: readonly number[]) => void;
/** Starts feeding `deliver` from the store's head; resolves with its stop function once ready. */
type Receiver = (deliver: Deliver) => Promise<() => void>;

/** Resolves `until` promises when their condition holds, checked at each `poke`. */
class Condition {
  private waiters = new Set<() => void>();

  poke(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  until(check: () => boolean): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = () => {
        if (!check()) return;
        this.waiters.delete(waiter);
        resolve();
      };
      this.waiters.add(waiter);
    });
  }
}

/** Commits `count` events in one transaction; returns their seqs. */
function commit(store: Store, count: number): number[] {
  return store.write((tx) => Array.from({ length: count }, () => tx.append(EVENT).seq));
}

/** A remote's subscription to every event after the store's head. */
function channelReceiver(remote: Remote, store: Store): Receiver {
  return async (deliver) => {
    const subscription = remote.connection.subscribeEvents(
      {},
      {
        afterSeq: store.events.head(),
        onEvents: (events) => deliver(events.map((event) => event.seq)),
      },
    );
    await subscription.ready;
    return () => subscription.close();
  };
}

const JsonEvents = z.looseObject({ events: z.array(z.looseObject({ seq: z.number() })) });

/**
 * The baseline: a `ws` server that sends each commit's events as one plain JSON message to
 * every client, from a store listener held while it has clients.
 */
async function startJsonBroadcast(store: Store): Promise<{ url: string; close(): void }> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await once(server, 'listening');
  let unsubscribe: (() => void) | undefined;
  server.on('connection', (socket) => {
    unsubscribe ??= store.subscribe((events) => {
      const text = JSON.stringify({ t: 'events', events });
      for (const client of server.clients) client.send(text);
    });
    socket.on('close', () => {
      if (server.clients.size > 0) return;
      unsubscribe?.();
      unsubscribe = undefined;
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    close: () => {
      unsubscribe?.();
      server.close();
    },
  };
}

/** A plain `ws` client of the baseline server; parses and checks each message's seqs. */
function jsonReceiver(url: string): Receiver {
  return async (deliver) => {
    const socket = new WebSocket(url);
    await once(socket, 'open');
    socket.on('message', (data: Buffer) => {
      const parsed = JsonEvents.safeParse(JSON.parse(data.toString('utf8')) as unknown);
      if (parsed.success) deliver(parsed.data.events.map((event) => event.seq));
    });
    return () => socket.close();
  };
}

/** Commits one event at a time, the next once every receiver has it; latencies in ms. */
async function commitOneByOne(
  store: Store,
  receivers: readonly Receiver[],
  count: number,
): Promise<number[]> {
  const latencies: number[] = [];
  let waiting: { seq: number; committedAt: number; left: number; done: () => void } | undefined;
  const deliver: Deliver = (seqs) => {
    const at = performance.now();
    if (waiting === undefined || !seqs.includes(waiting.seq)) return;
    latencies.push(at - waiting.committedAt);
    waiting.left -= 1;
    if (waiting.left === 0) waiting.done();
  };
  const stops = await Promise.all(receivers.map((receiver) => receiver(deliver)));
  try {
    for (let i = 0; i < count; i++) {
      await new Promise<void>((done) => {
        const [seq] = commit(store, 1);
        waiting = { seq: seq!, committedAt: performance.now(), left: receivers.length, done };
      });
    }
  } finally {
    for (const stop of stops) stop();
  }
  return latencies;
}

interface StreamFigures {
  /** Per event and receiver, commit to delivery. */
  latencies: number[];
  /** From the first commit until the slowest receiver had the last event. */
  ms: number;
  /** Time inside `store.write`: the commit, then the host sealing and sending to every receiver. */
  commitMs: number;
}

/**
 * Commits `total` events in transactions of `batch`, yielding between them and staying at
 * most {@link STREAM_WINDOW} events ahead of the slowest receiver.
 */
async function commitStream(
  store: Store,
  receivers: readonly Receiver[],
  total: number,
  batch: number,
): Promise<StreamFigures> {
  const committedAt = new Map<number, number>();
  const latencies: number[] = [];
  const highest = receivers.map(() => 0);
  const delivered = new Condition();
  const stops = await Promise.all(
    receivers.map((receiver, index) =>
      receiver((seqs) => {
        const at = performance.now();
        for (const seq of seqs) latencies.push(at - committedAt.get(seq)!);
        highest[index] = seqs.at(-1)!;
        delivered.poke();
      }),
    ),
  );
  const slowest = () => Math.min(...highest);
  const start = performance.now();
  let last = 0;
  let commitMs = 0;
  try {
    for (let written = 0; written < total; written += batch) {
      await delivered.until(() => slowest() >= last - STREAM_WINDOW);
      const before = performance.now();
      const seqs = commit(store, batch);
      const at = performance.now();
      commitMs += at - before;
      for (const seq of seqs) committedAt.set(seq, at);
      last = seqs.at(-1)!;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await delivered.until(() => slowest() >= last);
  } finally {
    for (const stop of stops) stop();
  }
  const ms = performance.now() - start;
  if (latencies.length !== total * receivers.length) {
    throw new Error(`${latencies.length} deliveries, expected ${total * receivers.length}`);
  }
  return { latencies, ms, commitMs };
}

/** Nearest-rank percentile. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const median = (values: readonly number[]) => percentile(values, 50);
const format = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const mb = (bytes: number) => `${format(bytes / 2 ** 20, 1)} MB`;

/** The median over rounds of each round's p50 and p99. */
function summarize(rounds: readonly number[][]): { p50: number; p99: number } {
  return {
    p50: median(rounds.map((latencies) => percentile(latencies, 50))),
    p99: median(rounds.map((latencies) => percentile(latencies, 99))),
  };
}

function row(label: string, cells: string[]): string {
  return [label.padEnd(30), ...cells.map((cell) => cell.padStart(10))].join(' ');
}

async function benchLatency(bench: BenchHost, json: string): Promise<void> {
  const remote = await pairRemote(bench, 'latency');
  const channel = channelReceiver(remote, bench.store);
  const plain = jsonReceiver(json);
  await commitOneByOne(bench.store, [channel], LATENCY_EVENTS);
  await commitOneByOne(bench.store, [plain], LATENCY_EVENTS);
  const channelRounds: number[][] = [];
  const plainRounds: number[][] = [];
  for (let round = 0; round < ROUNDS; round++) {
    channelRounds.push(await commitOneByOne(bench.store, [channel], LATENCY_EVENTS));
    plainRounds.push(await commitOneByOne(bench.store, [plain], LATENCY_EVENTS));
  }
  await remote.client.close();
  const a = summarize(channelRounds);
  const b = summarize(plainRounds);
  console.log(
    `\ncommit -> delivery, one event at a time to one remote: median of ${ROUNDS} rounds of ${format(LATENCY_EVENTS)}`,
  );
  console.log(row('', ['p50 ms', 'p99 ms']));
  console.log(row('encrypted channel', [format(a.p50, 3), format(a.p99, 3)]));
  console.log(row('plain JSON over ws', [format(b.p50, 3), format(b.p99, 3)]));
  console.log(
    row('channel / plain', [`${format(a.p50 / b.p50, 1)}x`, `${format(a.p99 / b.p99, 1)}x`]),
  );
}

async function benchFanout(bench: BenchHost, json: string): Promise<void> {
  const remotes: Remote[] = [];
  for (let i = 0; i < FANOUT_REMOTES; i++) remotes.push(await pairRemote(bench, `fan-out ${i}`));
  const kinds = [
    { label: 'encrypted channel', receivers: remotes.map((r) => channelReceiver(r, bench.store)) },
    { label: 'plain JSON over ws', receivers: remotes.map(() => jsonReceiver(json)) },
  ];
  const rounds = kinds.map(() => ({ single: [] as number[][], streams: [] as StreamFigures[] }));
  for (const { receivers } of kinds) await commitOneByOne(bench.store, receivers, FANOUT_EVENTS);
  for (let round = 0; round < FANOUT_ROUNDS; round++) {
    for (const [index, { receivers }] of kinds.entries()) {
      rounds[index]!.single.push(await commitOneByOne(bench.store, receivers, FANOUT_EVENTS));
      rounds[index]!.streams.push(
        await commitStream(bench.store, receivers, STREAM_EVENTS, STREAM_BATCH),
      );
    }
  }
  await Promise.all(remotes.map((remote) => remote.client.close()));
  const figures = rounds.map(({ single, streams }) => ({
    single: summarize(single),
    stream: summarize(streams.map((stream) => stream.latencies)),
    rate: median(streams.map((stream) => (STREAM_EVENTS * 1000) / stream.ms)),
    hostUs: median(streams.map((stream) => (stream.commitMs * 1000) / STREAM_EVENTS)),
  }));

  console.log(`\nfan-out to ${FANOUT_REMOTES} remotes, median of ${FANOUT_ROUNDS} rounds`);
  console.log(
    `  1-by-1: ${FANOUT_EVENTS} events, each committed once all ${FANOUT_REMOTES} have the one before\n` +
      `  stream: ${format(STREAM_EVENTS)} events in commits of ${STREAM_BATCH}, at most ` +
      `${format(STREAM_WINDOW)} ahead of the slowest remote\n` +
      `  events/s: each delivered to all ${FANOUT_REMOTES}; the remotes decrypt, validate and ` +
      `fold events on this same thread\n` +
      `  host/event: time inside store.write: the commit, then sealing and sending to all ${FANOUT_REMOTES}`,
  );
  console.log(
    row('', ['1-by-1 p50', '1-by-1 p99', 'stream p50', 'stream p99', 'events/s', 'host/event']),
  );
  for (const [index, { single, stream, rate, hostUs }] of figures.entries()) {
    console.log(
      row(kinds[index]!.label, [
        `${format(single.p50, 2)} ms`,
        `${format(single.p99, 2)} ms`,
        `${format(stream.p50, 1)} ms`,
        `${format(stream.p99, 1)} ms`,
        format(rate),
        `${format(hostUs, 1)} µs`,
      ]),
    );
  }
  const [channel, plain] = figures as [(typeof figures)[0], (typeof figures)[0]];
  console.log(
    row('channel / plain', [
      `${format(channel.single.p50 / plain.single.p50, 1)}x`,
      `${format(channel.single.p99 / plain.single.p99, 1)}x`,
      `${format(channel.stream.p50 / plain.stream.p50, 1)}x`,
      `${format(channel.stream.p99 / plain.stream.p99, 1)}x`,
      `${format(channel.rate / plain.rate, 2)}x`,
      `${format(channel.hostUs / plain.hostUs, 1)}x`,
    ]),
  );
}

/**
 * Memory while one remote's TCP socket is paused (it reads nothing) and 100,000 events
 * flow to another remote that reads; then how the paused one catches up once it reads.
 */
async function benchStalled(bench: BenchHost): Promise<void> {
  const reader = await pairRemote(bench, 'reader');
  const stalled = await pairRemote(bench, 'stalled');
  const caughtUp = new Condition();
  let stalledDelivered = 0;
  const stalledSubscription = stalled.connection.subscribeEvents(
    {},
    {
      afterSeq: bench.store.events.head(),
      onEvents: (events) => {
        stalledDelivered += events.length;
        caughtUp.poke();
      },
    },
  );
  await stalledSubscription.ready;
  // After `lagged` it subscribes again; a snapshot answer moves its cursor without any
  // events, right after it changes the state.
  stalled.connection.state.subscribe(() => queueMicrotask(() => caughtUp.poke()));
  (stalled.socket() as unknown as { _socket: Socket })._socket.pause();

  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const sampler = setInterval(() => {
    const { rss, heapUsed } = process.memoryUsage();
    peakRss = Math.max(peakRss, rss);
    peakHeap = Math.max(peakHeap, heapUsed);
  }, SAMPLE_MS);
  let stream: StreamFigures;
  try {
    stream = await commitStream(
      bench.store,
      [channelReceiver(reader, bench.store)],
      STALL_EVENTS,
      STALL_BATCH,
    );
  } finally {
    clearInterval(sampler);
  }
  const after = process.memoryUsage();

  const head = bench.store.events.head();
  const resumedAt = performance.now();
  (stalled.socket() as unknown as { _socket: Socket })._socket.resume();
  await caughtUp.until(() => (stalledSubscription.lastSeq ?? 0) >= head);
  const catchUpMs = performance.now() - resumedAt;
  await Promise.all([reader.client.close(), stalled.client.close()]);

  console.log(
    `\none remote's TCP socket paused while ${format(STALL_EVENTS)} events flow to another ` +
      `(commits of ${format(STALL_BATCH)}; RSS and heap of this whole process, host and remotes, sampled every ${SAMPLE_MS} ms)`,
  );
  console.log(
    `RSS: before ${mb(before.rss)}, peak ${mb(peakRss)} (+${mb(peakRss - before.rss)}), after ${mb(after.rss)}; ` +
      `heapUsed: before ${mb(before.heapUsed)}, peak ${mb(peakHeap)}`,
  );
  console.log(
    `the reading remote: ${format((STALL_EVENTS * 1000) / stream.ms)} events/s, ` +
      `p50 ${format(percentile(stream.latencies, 50), 1)} ms, p99 ${format(percentile(stream.latencies, 99), 1)} ms`,
  );
  console.log(
    `the paused remote, reading again: caught up in ${format(catchUpMs)} ms; ` +
      (stalledDelivered < STALL_EVENTS
        ? `${format(stalledDelivered)} events reached it before the host cut it off with lagged; ` +
          `it subscribed again from its cursor and a snapshot skipped the rest`
        : `all ${format(STALL_EVENTS)} events reached it (never cut off, or replayed after lagged)`),
  );
}

interface ResumeFigures {
  missed: number;
  appendMs: number;
  /** Until the connection is open: the socket, the handshake. */
  connectMs: number;
  /** Until the subscription has the head: connect, subscribe, replay or snapshot. */
  ms: number;
  delivered: number;
}

/**
 * Resume: from a remote's cursor, `missed` events are committed while it is away; then a new
 * client on its device connects and subscribes from that cursor. Timed from `connect` until
 * it has the store's head; the median of {@link RESUMES} reconnects from the same cursor.
 */
async function resumeAfter(
  bench: BenchHost,
  remote: Remote,
  missed: number,
): Promise<ResumeFigures> {
  const cursor = bench.store.events.head();
  const appendStart = performance.now();
  for (let written = 0; written < missed; written += APPEND_BATCH) {
    commit(bench.store, Math.min(APPEND_BATCH, missed - written));
  }
  const appendMs = performance.now() - appendStart;
  const head = bench.store.events.head();
  const connects: number[] = [];
  const times: number[] = [];
  let delivered = 0;
  for (let round = 0; round < RESUMES; round++) {
    const start = performance.now();
    const again = await connectRemote(remote.storage, remote.hostId);
    connects.push(performance.now() - start);
    const progress = new Condition();
    delivered = 0;
    const subscription = again.connection.subscribeEvents(
      {},
      {
        afterSeq: cursor,
        onEvents: (events) => {
          delivered += events.length;
          progress.poke();
        },
      },
    );
    void subscription.ready.then(() => progress.poke());
    await progress.until(() => (subscription.lastSeq ?? 0) >= head);
    times.push(performance.now() - start);
    await again.client.close();
  }
  return { missed, appendMs, connectMs: median(connects), ms: median(times), delivered };
}

async function benchResume(bench: BenchHost): Promise<void> {
  const remote = await pairRemote(bench, 'resume');
  await remote.client.close();
  const results: ResumeFigures[] = [];
  for (const missed of [0, 10_000, 1_000_000])
    results.push(await resumeAfter(bench, remote, missed));
  console.log(
    `\nresume from a cursor after missed events (committed while the remote was away), ` +
      `median of ${RESUMES} reconnects from the same cursor`,
  );
  console.log(row('', ['caught up', 'connected', 'delivered', 'appended in']));
  for (const { missed, appendMs, connectMs, ms, delivered } of results) {
    const mode = delivered === 0 ? (missed === 0 ? '' : ' (snapshot)') : ' (replay)';
    console.log(
      row(`${format(missed)} missed${mode}`, [
        `${format(ms, 1)} ms`,
        `${format(connectMs, 1)} ms`,
        format(delivered),
        `${format(appendMs / 1000, 1)} s`,
      ]),
    );
  }
  console.log(
    '  caught up: from connect until the subscription has the head; connected: until the ' +
      'channel is open (socket and handshake)',
  );
}

const started = performance.now();
const bench = await startBenchHost();
const json = await startJsonBroadcast(bench.store);
try {
  const sample = bench.store.write((tx) => tx.append(EVENT));
  console.log(
    `channel bench: the host and its remotes in this one process; every event is a ` +
      `${EVENT.type} of ${JSON.stringify(sample).length} bytes of JSON`,
  );
  await benchLatency(bench, json.url);
  await benchFanout(bench, json.url);
  await benchStalled(bench);
  await benchResume(bench);
} finally {
  json.close();
  await bench.stop();
}
console.log(`\n(${format((performance.now() - started) / 1000, 1)} s)`);
