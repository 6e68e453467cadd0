/**
 * The Node client against the real host process when things break: its socket dropped
 * mid-run at seeded random points, the host restarted gracefully and killed mid-tool, a
 * command sent while the host is down. Each time the client ends up with exactly the
 * events the store holds, in order, each once.
 */
import { closeSync, ftruncateSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Event } from '../../protocol/index.js';
import {
  type ConnectionEvent,
  type HostConnection,
  TetherClient,
  type WebSocketFactory,
} from '../../remote/client/index.js';
import { type EventSubscription } from '../../remote/client/testing.js';
import { FileStorage, nodeWebSocketFactory } from '../../remote/client/node/index.js';
import type { HostProcess } from '../support/host-process.js';
import { startModelHost, type ModelHost } from '../support/model-host.js';
import {
  textTurn,
  toolCallTurn,
  type ScriptedModelServer,
} from '../support/scripted-model-server.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { readStoredEvents } from '../support/store-events.js';
import { until } from '../support/wait.js';
import { stateWhere, statusOf } from './helpers.js';

/** How long any one awaited condition may take before the test fails with its name. */
const DEADLINE_MS = 20_000;

let served: ModelHost;
let host: HostProcess;
let model: ScriptedModelServer;
let rootDir: TempDir;
let root: string;
let storagePath: string;
let hostId: string;
/** The client a test opened; closed after it. */
let current: TetherClient | undefined;

/** mulberry32: the same drop points and backoff waits on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Resolves with `promise`, or fails naming `what` after the deadline. */
async function within<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), DEADLINE_MS);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads the host's database, read-only, while the host may be writing it. */
function readStore<T>(read: (db: Database.Database) => T): T {
  const db = new Database(join(host.dataDir, 'tether.db'), { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** The store's events after `afterSeq`, as the wire carries them (less the derived `id`). */
function storeEventsAfter(afterSeq: number): Omit<Event, 'id'>[] {
  return readStoredEvents(host.dataDir)
    .filter((event) => event.seq > afterSeq)
    .map(({ id: _id, ...event }) => ({ v: 1, ...event }) as Omit<Event, 'id'>);
}

const storeHead = () =>
  z
    .object({ head: z.number().nullable() })
    .parse(readStore((db) => db.prepare('SELECT MAX(seq) AS head FROM events').get())).head ?? 0;

const AdminFile = z.looseObject({ instance: z.string() });

/** The runtime instance the running host wrote to its admin file. */
function hostInstance(): string {
  return AdminFile.parse(JSON.parse(readFileSync(join(host.dataDir, 'admin.json'), 'utf8')))
    .instance;
}

/** Every event of one subscription, as its `onEvents` delivered them. */
class Feed {
  readonly events: Event[] = [];
  readonly subscription: EventSubscription;
  private readonly waiters = new Set<() => void>();

  constructor(connection: HostConnection) {
    this.subscription = connection.subscribeEvents(
      {},
      {
        onEvents: (batch) => {
          this.events.push(...batch);
          for (const waiter of [...this.waiters]) waiter();
        },
      },
    );
  }

  /** The seq the subscription started from: its snapshot's cursor. */
  async cursor(): Promise<number> {
    await within('the first subscribe answer', this.subscription.ready);
    return this.subscription.lastSeq ?? 0;
  }

  find(type: Event['type'], runId: string | null): Event | undefined {
    return this.events.find((event) => event.type === type && event.runId === runId);
  }

  /** Resolves once `check` holds, tested now and after every batch. */
  until(what: string, check: () => boolean): Promise<void> {
    if (check()) return Promise.resolve();
    let waiter!: () => void;
    return within(
      what,
      new Promise<void>((resolve) => {
        waiter = () => {
          if (!check()) return;
          this.waiters.delete(waiter);
          resolve();
        };
        this.waiters.add(waiter);
      }),
    ).finally(() => this.waiters.delete(waiter));
  }

  /**
   * Waits until the subscription reached the store's head, then expects exactly the
   * store's events after `cursor`: same seqs, same order, same content, none twice.
   */
  async expectStoreAfter(cursor: number): Promise<void> {
    const head = storeHead();
    await this.until(`seq ${head}`, () => (this.subscription.lastSeq ?? 0) >= head);
    const seqs = this.events.map((event) => event.seq);
    expect(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!)).toBe(true);
    expect(new Set(this.events.map((event) => event.id)).size).toBe(this.events.length);
    const stored = storeEventsAfter(cursor).filter((event) => event.seq <= head);
    expect(seqs.filter((seq) => seq <= head)).toEqual(stored.map((event) => event.seq));
    const received = this.events
      .filter((event) => event.seq <= head)
      .map(({ id: _id, ...rest }) => rest);
    expect(received).toEqual(stored);
  }
}

/** A connection's next `open` status on a connection other than `previous`. */
function nextOpen(connection: HostConnection, previous: string | undefined): Promise<string> {
  const now = connection.status;
  if (now.state === 'open' && now.connectionId !== previous)
    return Promise.resolve(now.connectionId);
  return within(
    'the connection to open again',
    new Promise((resolve) => {
      const stop = connection.on((event) => {
        if (event.type !== 'status' || event.status.state !== 'open') return;
        if (event.status.connectionId === previous) return;
        stop();
        resolve(event.status.connectionId);
      });
    }),
  );
}

interface OpenClient {
  connection: HostConnection;
  /** Every socket the client opened, the current one last. */
  sockets: WebSocket[];
  /** While true, the next socket to send a binary frame stops reading just before it. */
  holdNextAnswer: { armed: boolean; socket?: WebSocket };
}

/** A fresh client on the paired device's storage, connected, with sockets recorded. */
async function openClient(seed: number): Promise<OpenClient> {
  const sockets: WebSocket[] = [];
  const holdNextAnswer: OpenClient['holdNextAnswer'] = { armed: false };
  const open = nodeWebSocketFactory();
  const recording: WebSocketFactory = (url) => {
    const socket = open(url) as WebSocket;
    const send = socket.send.bind(socket);
    socket.send = ((data: string | Uint8Array) => {
      if (holdNextAnswer.armed && typeof data !== 'string') {
        // Deaf from before the request leaves, so its answer can never be read. Pausing the
        // TCP socket is not enough: ws hands what it buffered meanwhile to the client when
        // the socket is terminated, and under load the answer is in that buffer.
        holdNextAnswer.armed = false;
        holdNextAnswer.socket = socket;
        socket.onmessage = null;
      }
      send(data);
    }) as WebSocket['send'];
    sockets.push(socket);
    return socket;
  };
  current = new TetherClient({
    storage: new FileStorage(storagePath),
    socketFactory: recording,
    settings: { backoff: { baseMs: 20, maxMs: 100, random: seeded(seed) } },
  });
  const connection = await current.connect(hostId);
  await within('the first connection', statusOf(connection, 'open'));
  return { connection, sockets, holdNextAnswer };
}

beforeAll(async () => {
  rootDir = tempDir('tether-resilience-', { realpath: false });
  root = rootDir.path;
  storagePath = join(root, 'client.json');
  served = await startModelHost();
  ({ model, host } = served);
  const pairing = new TetherClient({
    storage: new FileStorage(storagePath),
    socketFactory: nodeWebSocketFactory(),
  });
  ({ hostId } = await pairing.pair(await host.pairLink(), {
    name: 'Resilience test',
    platform: 'node',
  }));
  await pairing.close();
});

afterEach(async () => {
  await current?.close();
  current = undefined;
});

afterAll(async () => {
  await served?.dispose();
  rootDir.remove();
});

describe('the client when the connection or the host fails', () => {
  it('resumes after its socket is dropped 6 times at random points of a run, with exactly the store’s events', async () => {
    const { connection, sockets } = await openClient(1);
    const feed = new Feed(connection);
    const cursor = await feed.cursor();
    const TURNS = 8;
    const DROPS = 6;
    for (let turn = 0; turn < TURNS; turn++) {
      const call = { id: `call_drop_${turn}`, name: 'list_directory', arguments: '{"path":"."}' };
      model.push(toolCallTurn([call], { delayMs: 40 }));
    }
    model.push(textTurn(['Listed ', 'it ', 'eight ', 'times.'], { delayMs: 40 }));
    const { runId } = await connection.submit('run.submit', {
      input: { text: 'List the workspace eight times' },
    });

    const random = seeded(0x7e7e7);
    const opened = new Set<string>();
    /** Scripted model responses not yet asked for at each drop: above 0, the run was still going. */
    const unaskedAtDrop: number[] = [];
    let connectionId: string | undefined;
    for (let drop = 0; drop < DROPS; drop++) {
      connectionId = await nextOpen(connection, connectionId);
      opened.add(connectionId);
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.floor(random() * 80)));
      unaskedAtDrop.push(model.pending);
      sockets.at(-1)!.terminate();
    }
    await feed.until('session.idle of the run', () => !!feed.find('session.idle', runId));
    opened.add(await nextOpen(connection, connectionId));

    expect(Math.min(...unaskedAtDrop)).toBeGreaterThan(0);
    expect(opened.size).toBe(DROPS + 1);
    expect(feed.find('run.finished', runId)?.payload).toEqual({ state: 'succeeded' });
    expect(feed.events.filter((event) => event.type === 'tool.finished')).toHaveLength(TURNS);
    const runEvents = feed.events.filter((event) => event.runId === runId);
    expect(runEvents.map(({ id: _id, ...rest }) => rest)).toEqual(
      storeEventsAfter(0).filter((event) => event.runId === runId),
    );
    await feed.expectStoreAfter(cursor);
    const fromHost = await connection.request('run.get', { runId });
    expect(connection.state.state.runs[runId]).toEqual(fromHost.run);
  });

  it('resumes from its cursor across a graceful host restart, reporting the new instance', async () => {
    const { connection } = await openClient(2);
    const feed = new Feed(connection);
    const cursor = await feed.cursor();
    const before = connection.status;
    if (before.state !== 'open') throw new Error('expected an open connection');
    const restarts: Extract<ConnectionEvent, { type: 'hostRestarted' }>[] = [];
    connection.on((event) => {
      if (event.type === 'hostRestarted') restarts.push(event);
    });
    const words = Array.from({ length: 50 }, (_, i) => `word${i} `);
    model.push(textTurn(words, { delayMs: 100 }), textTurn(['After ', 'the restart.']));
    const first = await connection.submit('run.submit', { input: { text: 'Talk slowly' } });
    const second = await connection.submit('run.submit', {
      sessionId: first.sessionId,
      input: { text: 'Then answer' },
    });
    expect(second.state).toBe('queued');
    await within(
      'the first run to stream',
      stateWhere(connection.state, (state) => state.previews[first.runId] !== undefined),
    );

    await host.restart();
    const instance = hostInstance();
    await feed.until(
      'session.idle of the second run',
      () => !!feed.find('session.idle', second.runId),
    );

    expect(restarts).toEqual([
      { type: 'hostRestarted', hostId, previousInstance: before.instanceId, instance },
    ]);
    const stopping = feed.find('host.stopping', null);
    const started = feed.find('host.started', null);
    expect(stopping?.payload).toMatchObject({ instance: before.instanceId });
    expect(started?.payload).toMatchObject({ instance, interruptedRuns: [] });
    const cancelled = feed.find('run.finished', first.runId);
    expect(feed.find('run.cancel_requested', first.runId)?.payload).toEqual({ by: 'host' });
    expect(cancelled?.payload).toMatchObject({ state: 'cancelled' });
    expect(cancelled!.seq).toBeLessThan(stopping!.seq);
    expect(stopping!.seq).toBeLessThan(started!.seq);
    expect(feed.find('run.started', second.runId)!.seq).toBeGreaterThan(started!.seq);
    expect(feed.find('run.finished', second.runId)?.payload).toEqual({ state: 'succeeded' });
    await feed.expectStoreAfter(cursor);
  });

  it('keeps a command sent while the host is down in its outbox and has it applied once', async () => {
    const { connection, holdNextAnswer } = await openClient(3);
    const settled: Extract<ConnectionEvent, { type: 'commandSettled' }>[] = [];
    connection.on((event) => {
      if (event.type === 'commandSettled') settled.push(event);
    });
    await host.stop();
    await within('the client to see the host gone', statusOf(connection, 'waiting'));

    model.push(textTurn(['Done ', 'at last.']));
    const text = 'Submitted while the host was down';
    holdNextAnswer.armed = true;
    const submitted = connection.submit('run.submit', { input: { text } });
    await until(
      'the command in the outbox',
      () => connection.pendingCommands.length,
      (n) => n === 1,
      {
        timeout: DEADLINE_MS,
        interval: 10,
      },
    );
    const { commandId } = connection.pendingCommands[0]!;
    const stored = z
      .array(z.looseObject({ commandId: z.string() }))
      .parse(await new FileStorage(storagePath).get(`outbox/${hostId}`));
    expect(stored.map((command) => command.commandId)).toEqual([commandId]);

    // Back up: the first send is applied but its answer never read; the resend is answered.
    await host.restart();
    const applied = () =>
      readStore((db) =>
        db.prepare('SELECT command_id FROM commands WHERE command_id = ?').all(commandId),
      ).length;
    await until('the host to apply the command', applied, (n) => n === 1, {
      timeout: DEADLINE_MS,
      interval: 10,
    });
    expect(settled).toHaveLength(0);
    holdNextAnswer.socket!.terminate();
    const result = await within('the command’s answer', submitted);

    expect(result.deduplicated).toBe(true);
    expect(connection.pendingCommands).toHaveLength(0);
    const { runs } = await connection.request('runs.list', { limit: 100 });
    const ours = runs.filter((run) => run.input.text === text);
    expect(ours.map((run) => run.id)).toEqual([result.runId]);
    const queued = storeEventsAfter(0).filter(
      (event) => event.type === 'run.queued' && event.payload.commandId === commandId,
    );
    expect(queued).toHaveLength(1);
    const idle = connection.subscribeEvents({ runId: result.runId }, { afterSeq: 0 });
    await within(
      'the run to end',
      stateWhere(connection.state, (state) => state.runs[result.runId]?.state === 'succeeded'),
    );
    idle.close();
    expect(applied()).toBe(1);
    expect(settled.filter((event) => event.command.commandId === commandId)).toHaveLength(1);
    expect(settled[0]?.outcome).toEqual({ ok: true, result });
  });

  it('sees the run interrupted and its running tool call unknown after the host is killed mid-tool', async () => {
    const { connection } = await openClient(4);
    const feed = new Feed(connection);
    const cursor = await feed.cursor();
    const before = connection.status;
    if (before.state !== 'open') throw new Error('expected an open connection');
    const restarts: Extract<ConnectionEvent, { type: 'hostRestarted' }>[] = [];
    connection.on((event) => {
      if (event.type === 'hostRestarted') restarts.push(event);
    });
    // A sparse 4 GiB file: read_file hashes all of it, which keeps the tool running for seconds.
    const huge = openSync(join(host.workspace, 'huge.bin'), 'w');
    ftruncateSync(huge, 4 * 2 ** 30);
    closeSync(huge);
    const call = { id: 'call_huge', name: 'read_file', arguments: '{"path":"huge.bin"}' };
    model.push(toolCallTurn([call]));
    const { runId } = await connection.submit('run.submit', { input: { text: 'Read huge.bin' } });
    await feed.until('the tool to start', () => !!feed.find('tool.started', runId));

    await host.kill();
    await host.restart();
    const instance = hostInstance();
    await feed.until('host.started', () => !!feed.find('host.started', null));
    await feed.until('session.idle of the run', () => !!feed.find('session.idle', runId));
    rmSync(join(host.workspace, 'huge.bin'));

    const toolCallId = feed.find('tool.started', runId)!.toolCallId!;
    const events = feed.events.filter((event) => event.runId === runId);
    expect(events.map((event) => event.type)).toEqual([
      'run.queued',
      'run.started',
      'model.request',
      'message.completed',
      'tool.proposed',
      'tool.started',
      'tool.finished',
      'run.finished',
      'session.idle',
    ]);
    const finished = events.find((event) => event.type === 'tool.finished')!;
    expect(finished.toolCallId).toBe(toolCallId);
    expect(finished.payload).toMatchObject({ status: 'unknown' });
    expect(feed.find('run.finished', runId)?.payload).toMatchObject({ state: 'interrupted' });
    expect(feed.find('host.started', null)?.payload).toEqual({
      instance,
      interruptedRuns: [runId],
    });
    expect(feed.find('host.stopping', null)).toBeUndefined();
    expect(restarts).toEqual([
      { type: 'hostRestarted', hostId, previousInstance: before.instanceId, instance },
    ]);
    expect(connection.state.state.runs[runId]?.state).toBe('interrupted');
    expect(connection.state.state.toolCalls[toolCallId]?.state).toBe('unknown');
    await feed.expectStoreAfter(cursor);
  });
});
