/**
 * The store: the only writer of the database. A state change and its events commit in
 * one transaction; subscribers hear of events only after that commit.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TetherError, digest, type Event, type NewEvent } from '../../protocol/index.js';
import { CommandLog } from './command-log.js';
import { openDatabase, type Db } from './database.js';
import { Devices } from './devices.js';
import { EventLog } from './event-log.js';
import { PairingOffers } from './pairing-offers.js';
import { SessionsAndRuns } from './sessions-and-runs.js';
import { ToolRecords } from './tool-records.js';

/** What a write transaction may do besides the repositories: append events. */
export interface WriteContext {
  /** The transaction's time, used for every row and event it writes. */
  readonly at: number;
  append(event: NewEvent): Event;
}

export type CommitListener = (events: readonly Event[]) => void;

export interface StoreOptions {
  /** The data directory: `tether.db`, `outputs/` and `artifacts/` live here. */
  dataDir: string;
  now?: () => number;
  /** Where a throwing commit listener is reported (it never fails the writer). */
  reportError?: (error: unknown) => void;
}

/** A command as recorded for deduplication. */
export interface CommandInput {
  commandId: string;
  op: string;
  args: Record<string, unknown>;
  deviceId: string;
}

const PERSISTENCE_CODES = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|CORRUPT|NOTADB|NOMEM|PROTOCOL)/;

/** `digest({op, args without commandId})`, the identity of a command's meaning. */
export function commandArgsDigest(op: string, args: Record<string, unknown>): string {
  const { commandId: _commandId, ...rest } = args;
  return digest({ op, args: rest });
}

export class Store {
  readonly runs: SessionsAndRuns;
  readonly tools: ToolRecords;
  readonly events: EventLog;
  readonly commands: CommandLog;
  readonly devices: Devices;
  readonly offers: PairingOffers;
  readonly outputsDir: string;
  readonly artifactsDir: string;
  private readonly listeners = new Set<CommitListener>();
  private pending: Event[] | null = null;
  private readonly now: () => number;
  private readonly reportError: (error: unknown) => void;

  private constructor(
    readonly db: Db,
    options: StoreOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.reportError = options.reportError ?? ((error) => console.error(error));
    this.runs = new SessionsAndRuns(db);
    this.tools = new ToolRecords(db);
    this.events = new EventLog(db);
    this.commands = new CommandLog(db);
    this.devices = new Devices(db);
    this.offers = new PairingOffers(db);
    this.outputsDir = join(options.dataDir, 'outputs');
    this.artifactsDir = join(options.dataDir, 'artifacts');
    mkdirSync(this.outputsDir, { recursive: true, mode: 0o700 });
    mkdirSync(this.artifactsDir, { recursive: true, mode: 0o700 });
  }

  /** Opens `<dataDir>/tether.db`, migrating it first (with a backup). */
  static async open(options: StoreOptions): Promise<Store> {
    const db = await openDatabase(join(options.dataDir, 'tether.db'), (options.now ?? Date.now)());
    return new Store(db, options);
  }

  /**
   * Runs `fn` in one IMMEDIATE transaction. Events appended inside are published to
   * subscribers after the commit, in seq order; on rollback nobody hears of them. A write
   * inside a write joins the outer transaction. A failing disk is `persistence_failed`.
   */
  write<T>(fn: (tx: WriteContext) => T): T {
    if (this.pending !== null) return fn(this.context(this.pending));
    const events: Event[] = [];
    this.pending = events;
    let result: T;
    try {
      result = this.db.transaction(() => fn(this.context(events))).immediate();
    } catch (error) {
      throw asPersistenceError(error);
    } finally {
      this.pending = null;
    }
    if (events.length > 0) this.publish(events);
    return result;
  }

  /** Reads in one transaction, so everything read belongs to the same committed state. */
  read<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn();
    return this.db.transaction(fn).deferred();
  }

  /**
   * Applies a command once. The same commandId with the same meaning returns the stored
   * result with `deduplicated: true`; with another meaning it is `command_conflict`.
   */
  applyCommand<R extends Record<string, unknown>>(
    command: CommandInput,
    apply: (tx: WriteContext) => R,
  ): { result: R; deduplicated: boolean } {
    const argsDigest = commandArgsDigest(command.op, command.args);
    return this.write((tx) => {
      const stored = this.commands.find(command.commandId);
      if (stored !== undefined) {
        if (stored.op !== command.op || stored.argsDigest !== argsDigest) {
          throw new TetherError(
            'command_conflict',
            `command ${command.commandId} was already used for a different ${stored.op} command`,
            { details: { commandId: command.commandId, op: stored.op } },
          );
        }
        return { result: stored.result as R, deduplicated: true };
      }
      const result = apply(tx);
      this.commands.record({
        commandId: command.commandId,
        op: command.op,
        argsDigest,
        deviceId: command.deviceId,
        result,
        createdAt: tx.at,
      });
      return { result, deduplicated: false };
    });
  }

  /** Hears every committed event, in seq order. Returns the unsubscribe function. */
  subscribe(listener: CommitListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.listeners.clear();
    if (this.db.open) this.db.close();
  }

  private context(events: Event[]): WriteContext {
    const at = this.now();
    return {
      at,
      append: (event) => {
        const stored = this.events.append(event, at);
        events.push(stored);
        return stored;
      },
    };
  }

  private publish(events: readonly Event[]): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(events);
      } catch (error) {
        this.reportError(error);
      }
    }
  }
}

function asPersistenceError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && PERSISTENCE_CODES.test(code)) {
    return new TetherError(
      'persistence_failed',
      `the store cannot commit (${code}): nothing was done`,
      {
        cause: error,
      },
    );
  }
  return error;
}
