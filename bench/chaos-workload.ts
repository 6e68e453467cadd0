/**
 * The chaos workload (issue 7), shared by test/faults/chaos.test.ts and bench/soak.ts:
 * client-core remotes send commands (run.submit to several sessions, some run.cancel)
 * while their sockets are dropped at seeded random moments; whoever drives it restarts
 * the host as it likes. Afterwards {@link ChaosWorkload.check} compares what the clients
 * saw with the host's database: each command applied once, each client's event stream
 * equal to the store's.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type WebSocket from 'ws';
import type { Event } from '../protocol/index.js';
import {
  type HostConnection,
  TetherClient,
  type WebSocketFactory,
} from '../remote/client/index.js';
import { MemoryStorage } from '../remote/client/testing.js';
import { nodeWebSocketFactory } from '../remote/client/node/index.js';

/** mulberry32: the same choices for the same seed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** The host under test, however it runs. */
export interface ChaosHost {
  readonly dataDir: string;
  pairLink(): Promise<string>;
}

interface ChaosClient {
  name: string;
  client: TetherClient;
  connection: HostConnection;
  sockets: WebSocket[];
  sessions: string[];
  runs: string[];
  /** Every event the unscoped subscription delivered, in order. */
  events: Event[];
  /** The seq the subscription started after. */
  cursor: number;
  /** commandIds answered for good, by op. */
  settled: Map<string, string>;
  failures: string[];
  sent: number;
}

/** Broken invariants, each in one line; empty when all hold. */
export type Violations = string[];

export class ChaosWorkload {
  private readonly clients: ChaosClient[] = [];
  private dropper: NodeJS.Timeout | null = null;
  drops = 0;
  sent = 0;

  private constructor(
    private readonly host: ChaosHost,
    private readonly random: () => number,
  ) {}

  /** Pairs `clients` remotes, opens `sessionsPerClient` sessions each, and subscribes. */
  static async start(
    host: ChaosHost,
    options: { clients: number; sessionsPerClient: number; seed: number },
  ): Promise<ChaosWorkload> {
    const workload = new ChaosWorkload(host, seeded(options.seed));
    for (let i = 0; i < options.clients; i++) {
      workload.clients.push(await workload.openClient(`chaos-${i}`, options.seed + i));
    }
    for (const chaos of workload.clients) {
      await new Promise<void>((resolve) => {
        const subscription = chaos.connection.subscribeEvents(
          {},
          { onEvents: (batch) => chaos.events.push(...batch) },
        );
        void subscription.ready.then(() => {
          // Not lastSeq: events that came in the answer's turn have moved it already.
          chaos.cursor = subscription.startedAfter ?? 0;
          resolve();
        });
      });
      for (let s = 0; s < options.sessionsPerClient; s++) {
        const result = await workload.send(chaos, 'run.submit', {
          input: { text: `${chaos.name} session ${s}` },
        });
        if (result !== null) chaos.sessions.push(String(result['sessionId']));
      }
    }
    return workload;
  }

  private async openClient(name: string, seed: number): Promise<ChaosClient> {
    const sockets: WebSocket[] = [];
    const open = nodeWebSocketFactory();
    const recording: WebSocketFactory = (url) => {
      const socket = open(url) as WebSocket;
      sockets.push(socket);
      return socket;
    };
    const storage = new MemoryStorage();
    const pairing = new TetherClient({ storage, socketFactory: nodeWebSocketFactory() });
    const { hostId } = await pairing.pair(await this.host.pairLink(), {
      name,
      platform: 'node',
    });
    await pairing.close();
    const client = new TetherClient({
      storage,
      socketFactory: recording,
      settings: { backoff: { baseMs: 20, maxMs: 300, random: seeded(seed) } },
    });
    const connection = await client.connect(hostId);
    const chaos: ChaosClient = {
      name,
      client,
      connection,
      sockets,
      sessions: [],
      runs: [],
      events: [],
      cursor: 0,
      settled: new Map(),
      failures: [],
      sent: 0,
    };
    connection.on((event) => {
      if (event.type !== 'commandSettled') return;
      if (chaos.settled.has(event.command.commandId)) {
        chaos.failures.push(`${name}: command ${event.command.commandId} settled twice`);
      }
      chaos.settled.set(event.command.commandId, event.command.op);
      if (!event.outcome.ok) {
        chaos.failures.push(`${name}: ${event.command.op} failed: ${event.outcome.error.code}`);
      }
    });
    return chaos;
  }

  private async send(
    chaos: ChaosClient,
    op: 'run.submit' | 'run.cancel',
    args: Record<string, unknown>,
  ): Promise<Record<string, unknown> | null> {
    chaos.sent++;
    this.sent++;
    try {
      const result: Record<string, unknown> = await chaos.connection.submit(op, args);
      if (op === 'run.submit') chaos.runs.push(String(result['runId']));
      return result;
    } catch {
      return null;
    }
  }

  /** Drops a random client's socket every `minMs`..`maxMs` until {@link stopDropping}. */
  startDropping(minMs: number, maxMs: number): void {
    const next = () => {
      this.dropper = setTimeout(
        () => {
          const chaos = this.clients[Math.floor(this.random() * this.clients.length)]!;
          const socket = chaos.sockets.at(-1);
          if (socket !== undefined && socket.readyState === socket.OPEN) {
            socket.terminate();
            this.drops++;
          }
          next();
        },
        minMs + this.random() * (maxMs - minMs),
      );
    };
    next();
  }

  stopDropping(): void {
    if (this.dropper !== null) clearTimeout(this.dropper);
    this.dropper = null;
  }

  /**
   * Sends `count` commands spread over the clients, at most `inFlight` waiting per client:
   * mostly run.submit to the client's sessions, every tenth a run.cancel of one of its runs.
   */
  async sendCommands(count: number, inFlight = 8): Promise<void> {
    let left = count;
    await Promise.all(
      this.clients.map(async (chaos) => {
        const lanes = Array.from({ length: inFlight }, async () => {
          while (left > 0) {
            left--;
            const cancel = this.random() < 0.1 && chaos.runs.length > 0;
            if (cancel) {
              const runId = chaos.runs[Math.floor(this.random() * chaos.runs.length)]!;
              await this.send(chaos, 'run.cancel', { runId });
            } else {
              const sessionId = chaos.sessions[Math.floor(this.random() * chaos.sessions.length)];
              await this.send(chaos, 'run.submit', {
                ...(sessionId === undefined ? {} : { sessionId }),
                input: { text: `${chaos.name} #${chaos.sent}` },
              });
            }
          }
        });
        await Promise.all(lanes);
      }),
    );
  }

  /**
   * Waits until no run is queued or executing and every client's subscription reached the
   * store's head (or `timeoutMs`), so {@link check} can ask for everything.
   */
  async settle(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [head, active] = this.readStore((db) => [
        headOf(db),
        (
          db
            .prepare(
              "SELECT COUNT(*) AS n FROM runs WHERE state IN ('queued', 'running', 'cancelling')",
            )
            .get() as { n: number }
        ).n,
      ]);
      if (active > 0 && Date.now() <= deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      const behind = this.clients.filter(
        (chaos) => (chaos.events.at(-1)?.seq ?? chaos.cursor) < head,
      );
      if (behind.length === 0) return active === 0;
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * Every invariant, checked against the database. While commands and events are still in
   * flight (`final` false) each client is held to what it has had so far: its answers are
   * in the command log once, and its stream equals the store's up to its last seq. Once
   * {@link settle}d (`final`), every command must be answered and every stream at the head.
   */
  check(final: boolean): Violations {
    const violations: Violations = [];
    this.readStore((db) => {
      const head = headOf(db);
      const commands = new Map(
        (
          db.prepare('SELECT command_id, op FROM commands').all() as {
            command_id: string;
            op: string;
          }[]
        ).map((row) => [row.command_id, row.op]),
      );
      const queued = new Map<string, number>();
      for (const row of db
        .prepare(
          "SELECT json_extract(payload_json, '$.commandId') AS id FROM events WHERE type = 'run.queued'",
        )
        .all() as { id: string }[]) {
        queued.set(row.id, (queued.get(row.id) ?? 0) + 1);
      }
      for (const [id, times] of queued) {
        if (times > 1) violations.push(`command ${id} queued ${times} runs`);
      }
      for (const chaos of this.clients) {
        violations.push(...chaos.failures);
        if (final && chaos.settled.size !== chaos.sent) {
          violations.push(
            `${chaos.name}: ${chaos.sent} commands sent, ${chaos.settled.size} answered`,
          );
        }
        for (const [id, op] of chaos.settled) {
          if (commands.get(id) !== op)
            violations.push(`${chaos.name}: ${op} ${id} is not in the command log`);
          if (op === 'run.submit' && queued.get(id) !== 1) {
            violations.push(`${chaos.name}: run.submit ${id} made ${queued.get(id) ?? 0} runs`);
          }
        }
        const upTo = final ? head : Math.min(head, chaos.events.at(-1)?.seq ?? chaos.cursor);
        const stored = (
          db
            .prepare('SELECT * FROM events WHERE seq > ? AND seq <= ? ORDER BY seq')
            .all(chaos.cursor, upTo) as StoredEventRow[]
        ).map(wireEvent);
        const received = chaos.events.filter((event) => event.seq <= upTo);
        const seqs = received.map((event) => event.seq);
        if (seqs.some((seq, i) => i > 0 && seq <= seqs[i - 1]!)) {
          violations.push(`${chaos.name}: events out of order or twice`);
        }
        if (received.length !== stored.length) {
          violations.push(
            `${chaos.name}: received ${received.length} events, the store has ${stored.length}`,
          );
        }
        const firstDiff = stored.findIndex(
          (event, i) => canonical(event) !== canonical(received[i]),
        );
        if (firstDiff >= 0) {
          violations.push(
            `${chaos.name}: event ${stored[firstDiff]!.seq} differs from the store's`,
          );
        }
      }
    });
    return violations;
  }

  /** Events received by all clients together (for rates). */
  get eventsReceived(): number {
    return this.clients.reduce((sum, chaos) => sum + chaos.events.length, 0);
  }

  get answered(): number {
    return this.clients.reduce((sum, chaos) => sum + chaos.settled.size, 0);
  }

  async close(): Promise<void> {
    this.stopDropping();
    await Promise.all(this.clients.map((chaos) => chaos.client.close()));
  }

  private readStore<T>(read: (db: Database.Database) => T): T {
    const db = new Database(join(this.host.dataDir, 'tether.db'), {
      readonly: true,
      fileMustExist: true,
    });
    try {
      return read(db);
    } finally {
      db.close();
    }
  }
}

interface StoredEventRow {
  seq: number;
  type: string;
  at: number;
  session_id: string | null;
  run_id: string | null;
  tool_call_id: string | null;
  payload_json: string;
}

/** JSON with sorted keys, so equal content compares equal whatever the key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );
}

function headOf(db: Database.Database): number {
  return (
    (db.prepare('SELECT MAX(seq) AS head FROM events').get() as { head: number | null }).head ?? 0
  );
}

/** A stored event as the wire carries it. */
function wireEvent(row: StoredEventRow): Event {
  return {
    v: 1,
    seq: row.seq,
    id: `evt_${row.seq}`,
    type: row.type,
    at: row.at,
    sessionId: row.session_id,
    runId: row.run_id,
    toolCallId: row.tool_call_id,
    payload: JSON.parse(row.payload_json) as unknown,
  } as Event;
}
