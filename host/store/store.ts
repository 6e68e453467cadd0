/**
 * The store: the only writer of the database. A state change and its events commit in
 * one transaction; subscribers hear of events only after that commit.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TetherError, digest, type Event, type NewEvent } from '../../protocol/index.js';
import type { Redactor } from '../log/index.js';
import { AllowRules } from './allow-rules.js';
import { Attachments } from './attachments.js';
import { CommandLog } from './command-log.js';
import { DatabaseFileGuard } from './database-file-guard.js';
import { openDatabase, type Db } from './database.js';
import { Devices } from './devices.js';
import { EventLog } from './event-log.js';
import type { HistoryRewind } from './history-rewinds.js';
import { writeDurableFile } from './output-files.js';
import { McpGroups } from './mcp-groups.js';
import { Worktrees } from './worktrees.js';
import { OrphanGroups } from './orphan-groups.js';
import { PageLimitControl } from './page-limit.js';
import { PairingOffers } from './pairing-offers.js';
import { PushRecords } from './push-records.js';
import {
  isPersistenceFailed,
  type PersistenceListener,
  type PersistenceState,
} from './persistence.js';
import { PersistenceGate } from './persistence-gate.js';
import { SessionSummaries } from './session-summaries.js';
import { StoreHistory } from './store-history.js';
import { SessionsAndRuns } from './sessions-and-runs.js';
import { ToolRecords, type OutputFile } from './tool-records.js';
import { UsageTotals } from './usage-totals.js';

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
  /**
   * The host's secrets: masked (whole, cut short or elided) in every event payload and run
   * error before it is written, so no device ever receives one.
   */
  secrets?: Redactor;
  /**
   * Fault tests only (`TETHER_FAULTS=1`): a file whose content sets `PRAGMA
   * max_page_count` before each commit (see page-limit.ts).
   */
  pageLimitFile?: string;
  /** Hears each time the database is found to have gone back in time (store-history.ts). */
  onHistoryRewound?: (rewind: HistoryRewind) => void;
}

/** A command as recorded for deduplication. */
export interface CommandInput {
  commandId: string;
  op: string;
  args: Record<string, unknown>;
  deviceId: string;
}

/** Longest a noted last-seen time waits in memory before it is written. */
const SEEN_FLUSH_MS = 10_000;
/** Bytes the commit probe writes (and removes in the same transaction): a few pages. */
const PROBE_BYTES = 64 * 1024;

/** `digest({op, args without commandId})`, the identity of a command's meaning. */
function commandArgsDigest(op: string, args: Record<string, unknown>): string {
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
  readonly orphanGroups: OrphanGroups;
  readonly mcpGroups: McpGroups;
  readonly worktrees: Worktrees;
  readonly push: PushRecords;
  readonly usage: UsageTotals;
  readonly allowRules: AllowRules;
  readonly summaries: SessionSummaries;
  /** Uploads from remotes: rows here, files in `<data>/attachments`. */
  readonly attachments: Attachments;
  /** Whether the database went back in time, and the mark that tells (store-history.ts). */
  readonly history: StoreHistory;
  readonly outputsDir: string;
  readonly artifactsDir: string;
  private readonly listeners = new Set<CommitListener>();
  private pending: Event[] | null = null;
  private readonly now: () => number;
  private readonly reportError: (error: unknown) => void;
  private readonly gate: PersistenceGate;
  /** Set while the probe or the recovery after it commits past the closed gate. */
  private reopening = false;
  private committed = 0;
  private readonly pageLimit: PageLimitControl | null;
  private readonly fileGuard: DatabaseFileGuard;
  private readonly secrets: Redactor | null;
  private seenFlush: NodeJS.Timeout | null = null;

  private constructor(
    readonly db: Db,
    options: StoreOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.reportError = options.reportError ?? ((error) => console.error(error));
    this.gate = new PersistenceGate(this.now, this.reportError);
    this.pageLimit =
      options.pageLimitFile === undefined ? null : new PageLimitControl(options.pageLimitFile);
    this.secrets = options.secrets ?? null;
    this.runs = new SessionsAndRuns(db, this.secrets);
    this.tools = new ToolRecords(db);
    this.events = new EventLog(db, this.secrets);
    this.commands = new CommandLog(db);
    this.devices = new Devices(db);
    this.offers = new PairingOffers(db);
    this.orphanGroups = new OrphanGroups(db);
    this.mcpGroups = new McpGroups(db);
    this.worktrees = new Worktrees(db);
    this.push = new PushRecords(db);
    this.usage = new UsageTotals(db);
    this.allowRules = new AllowRules(db);
    this.summaries = new SessionSummaries(db);
    this.fileGuard = new DatabaseFileGuard(join(options.dataDir, 'tether.db'));
    this.outputsDir = join(options.dataDir, 'outputs');
    this.artifactsDir = join(options.dataDir, 'artifacts');
    mkdirSync(this.outputsDir, { recursive: true, mode: 0o700 });
    mkdirSync(this.artifactsDir, { recursive: true, mode: 0o700 });
    const attachmentsDir = join(options.dataDir, 'attachments');
    mkdirSync(attachmentsDir, { recursive: true, mode: 0o700 });
    this.attachments = new Attachments(db, attachmentsDir);
    this.history = new StoreHistory(db, {
      dataDir: options.dataDir,
      write: (fn) => this.write(fn),
      head: () => this.events.head(),
      now: this.now,
      reportError: this.reportError,
      ...(options.onHistoryRewound === undefined ? {} : { onRewound: options.onHistoryRewound }),
    });
  }

  /** Opens `<dataDir>/tether.db`, migrating it first (with a backup). */
  static async open(options: StoreOptions): Promise<Store> {
    const db = await openDatabase(join(options.dataDir, 'tether.db'), (options.now ?? Date.now)());
    return new Store(db, options);
  }

  /**
   * Runs `fn` in one IMMEDIATE transaction. Events appended inside are published to
   * subscribers after the commit, in seq order; on rollback nobody hears of them. A write
   * inside a write joins the outer transaction. A failing disk is `persistence_failed`, and
   * from then on every write is refused with it, untried, until {@link reopen} succeeds.
   */
  write<T>(fn: (tx: WriteContext) => T): T {
    if (this.pending !== null) return fn(this.context(this.pending));
    if (!this.reopening) this.gate.check();
    const events: Event[] = [];
    this.pending = events;
    let result: T;
    try {
      this.fileGuard.check();
      this.pageLimit?.apply(this.db);
      result = this.db.transaction(() => fn(this.context(events))).immediate();
      this.committed++;
    } catch (error) {
      // Out of the transaction before anyone hears of the failure.
      this.pending = null;
      throw this.gate.failed(error);
    } finally {
      this.pending = null;
    }
    if (events.length > 0) {
      this.history.noteCommitted(events.at(-1)!.seq);
      this.publish(events);
    }
    return result;
  }

  /**
   * Write transactions committed since the store opened: a read made at one count still
   * holds while the count is the same (every write goes through {@link write}).
   */
  get commits(): number {
    return this.committed;
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

  /**
   * `text` with every registered secret masked (whole, cut short or elided), as event
   * payloads are: for what goes elsewhere than the event log, such as a tool's result on
   * its way to the model.
   */
  maskSecrets(text: string): string {
    return this.secrets === null ? text : this.secrets.text(text);
  }

  /** Where a tool call's output file is: the command's streamed output, or its result. */
  outputPath(toolCallId: string): string {
    return join(this.outputsDir, `${toolCallId}.out`);
  }

  /**
   * Writes a file that a row will name (a tool's output, an artifact), durably. Refused
   * like a commit while commits fail; a disk error (ENOSPC, EIO…) makes them fail.
   */
  writeFile(path: string, text: string): OutputFile {
    this.gate.check();
    try {
      this.fileGuard.check();
      return writeDurableFile(path, text);
    } catch (error) {
      throw this.gate.failed(error);
    }
  }

  /** Whether commits work now. */
  get persistence(): PersistenceState {
    return this.gate.state;
  }

  /** Hears each change of {@link persistence}: one call per transition. */
  onPersistence(listener: PersistenceListener): () => void {
    return this.gate.listen(listener);
  }

  /**
   * Tries a small real commit (rows of {@link PROBE_BYTES} written and deleted in one
   * transaction: the file must be able to grow and the log to take the pages). True when
   * it committed. Does not reopen the store: the caller recovers first.
   */
  probeCommit(): boolean {
    try {
      this.fileGuard.check();
      this.pageLimit?.apply(this.db);
      this.db
        .transaction(() => {
          this.db.prepare('INSERT INTO commit_probe (pad) VALUES (zeroblob(?))').run(PROBE_BYTES);
          this.db.prepare('DELETE FROM commit_probe').run();
        })
        .immediate();
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Commits `fn` past the closed gate (the recovery after a failure) and, once it
   * committed, accepts writes again. A failure leaves the store refusing writes.
   */
  reopen<T>(fn: (tx: WriteContext) => T): T {
    this.reopening = true;
    let result: T;
    try {
      result = this.write(fn);
    } finally {
      this.reopening = false;
    }
    this.gate.open();
    return result;
  }

  /**
   * Notes that a device was seen now. Reads see it at once; it is written with every other
   * note of the next {@link SEEN_FLUSH_MS}, in one commit, or at {@link close}. While
   * commits fail the notes are dropped: last seen waits for a later visit.
   */
  noteDeviceSeen(deviceId: string): void {
    this.devices.noteSeen(deviceId, this.now());
    if (this.seenFlush !== null) return;
    this.seenFlush = setTimeout(() => {
      this.seenFlush = null;
      this.writeDevicesSeen();
    }, SEEN_FLUSH_MS);
    this.seenFlush.unref();
  }

  /** Hears every committed event, in seq order. Returns the unsubscribe function. */
  subscribe(listener: CommitListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    if (this.seenFlush !== null) clearTimeout(this.seenFlush);
    this.seenFlush = null;
    if (this.db.open) this.writeDevicesSeen();
    this.history.close();
    this.listeners.clear();
    if (this.db.open) this.db.close();
  }

  private writeDevicesSeen(): void {
    const seen = this.devices.takeSeen();
    if (seen.size === 0) return;
    try {
      this.write(() => {
        for (const [deviceId, at] of seen) this.devices.touch(deviceId, at);
      });
    } catch (error) {
      if (!isPersistenceFailed(error)) this.reportError(error);
    }
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
