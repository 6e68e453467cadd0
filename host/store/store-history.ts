/**
 * Whether the database went back in time (docs/reliability.md, "A store that went back in
 * time"). Two signals: at open, the history mark kept beside the database names a higher
 * seq than the database ever handed out; later, a device subscribes with a cursor past
 * every seq handed out. Either is recorded once (`history_rewinds`), raises the seq counter
 * past what was seen (so no seq a device holds is handed out again for another event), and
 * is shown until the user acknowledges it.
 */
import type { Db } from './database.js';
import { HistoryMarkWriter, readHistoryMark } from './history-mark.js';
import {
  HistoryRewinds,
  allocatedHead,
  databaseIdentity,
  type HistoryRewind,
} from './history-rewinds.js';

/**
 * How far past the seqs handed out a device's cursor may raise the counter: a cursor
 * further ahead is recorded as it is, but the counter moves by this much only (a bad
 * cursor must not exhaust the seqs).
 */
const MAX_CLAIM_RAISE = 1_000_000_000;

/** What `host.info.history` says: `rewound` while a rewind is not acknowledged. */
export type HistoryState = {
  rewound?: {
    /** When the latest unacknowledged rewind was found (ms). */
    detectedAt: number;
    /** The database's last event seq then. */
    head: number;
    /** The highest seq known before: the mark's (`by: "host"`), or a device's cursor. */
    knownHead: number;
    by: 'host' | 'device';
    deviceId?: string;
    /** Rewinds not yet acknowledged (1 or more). */
    count: number;
  };
};

export interface StoreHistoryOptions {
  dataDir: string;
  /** The store's write: a rewind is recorded in one transaction. */
  write: <T>(fn: () => T) => T;
  /** The event log's head (`MAX(seq)`). */
  head: () => number;
  now: () => number;
  reportError: (error: unknown) => void;
  /** Hears each rewind found (to log it). */
  onRewound?: (rewind: HistoryRewind) => void;
}

export class StoreHistory {
  private readonly rewinds: HistoryRewinds;
  private readonly mark: HistoryMarkWriter;
  /** The highest seq the database handed out (or was raised to). */
  private allocated: number;
  private shown: HistoryRewind[];
  /** The seqs lost by every rewind recorded: a cursor in one gets a snapshot. */
  private readonly gaps: [number, number][];
  /** Found at open: the caller logs it once the log is wired. */
  readonly foundAtOpen: HistoryRewind | null = null;
  /** Why the mark could not be read at open, if it could not. */
  readonly markProblem: string | null = null;

  constructor(
    db: Db,
    private readonly options: StoreHistoryOptions,
  ) {
    this.rewinds = new HistoryRewinds(db);
    this.gaps = this.rewinds.gaps();
    this.allocated = allocatedHead(db);
    const identity = databaseIdentity(db);
    const reading = readHistoryMark(options.dataDir);
    if ('problem' in reading && reading.problem !== undefined) this.markProblem = reading.problem;
    const mark = reading.mark?.database === identity ? reading.mark : null;
    const behind = mark !== null && mark.seq > this.allocated ? mark.seq : null;
    this.mark = new HistoryMarkWriter(
      options.dataDir,
      identity,
      behind ?? this.allocated,
      options.now,
      options.reportError,
    );
    if (behind !== null) {
      this.foundAtOpen = this.found({ source: 'mark', knownHead: behind, deviceId: null }, behind);
    }
    this.shown = this.rewinds.unacknowledged();
    // Unrecorded (commits fail), it is still shown, and the mark keeps it for the next start.
    if (this.foundAtOpen !== null && this.foundAtOpen.id < 0) this.shown.push(this.foundAtOpen);
    // A mark that already says this database's head stays as it is: a start that fails
    // later (a port in use) writes nothing in the data directory.
    if (mark?.seq !== this.mark.seq) {
      try {
        this.mark.writeNow();
      } catch (error) {
        options.reportError(error);
      }
    }
  }

  /** What `host.info.history` says now. */
  get state(): HistoryState {
    const latest = this.shown.at(-1);
    if (latest === undefined) return {};
    return {
      rewound: {
        detectedAt: latest.detectedAt,
        head: latest.head,
        knownHead: latest.knownHead,
        by: latest.source === 'mark' ? 'host' : 'device',
        ...(latest.deviceId === null ? {} : { deviceId: latest.deviceId }),
        count: this.shown.length,
      },
    };
  }

  /** The rewinds shown (not yet acknowledged), oldest first. */
  get unacknowledged(): readonly HistoryRewind[] {
    return this.shown;
  }

  /** Notes a committed seq (memory only; the mark follows off the commit path). */
  noteCommitted(seq: number): void {
    if (seq > this.allocated) this.allocated = seq;
    this.mark.note(seq);
  }

  /**
   * A device subscribed with `cursor` past the log's head. Past every seq this database
   * handed out, the database went back in time after that device saw it: recorded once.
   */
  noteCursorPastHead(deviceId: string, cursor: number): void {
    if (cursor <= this.allocated) return;
    const raiseTo = Math.min(cursor, this.allocated + MAX_CLAIM_RAISE);
    const rewind = this.found({ source: 'device', knownHead: cursor, deviceId }, raiseTo);
    this.shown.push(rewind);
  }

  /**
   * Whether `cursor` names an event that was lost (between a rewind's head and what was
   * known past it): a device holding it saw history this host no longer has, so it must
   * get a snapshot, not a replay, even once new events have passed it.
   */
  isLost(cursor: number): boolean {
    return this.gaps.some(([head, knownHead]) => cursor > head && cursor <= knownHead);
  }

  /** Acknowledges every rewind shown: `host.info` stops saying it. Returns how many. */
  acknowledge(): number {
    const count = this.shown.length;
    if (count === 0) return 0;
    this.options.write(() => this.rewinds.acknowledge(this.options.now()));
    this.shown = [];
    return count;
  }

  /** Writes the mark's last seq. */
  close(): void {
    this.mark.close();
  }

  /** Records a rewind and raises the counter; unrecorded (id -1) when commits fail. */
  private found(
    known: Pick<HistoryRewind, 'source' | 'knownHead' | 'deviceId'>,
    raiseTo: number,
  ): HistoryRewind {
    const rewind = { ...known, detectedAt: this.options.now(), head: this.options.head() };
    let stored: HistoryRewind = { id: -1, ...rewind };
    try {
      stored = this.options.write(() => this.rewinds.record(rewind, raiseTo));
    } catch (error) {
      this.options.reportError(error);
    }
    this.gaps.push([rewind.head, rewind.knownHead]);
    // Recorded or not, it is known now: the mark keeps it for the next start.
    this.allocated = Math.max(this.allocated, raiseTo);
    this.mark.note(this.allocated);
    this.options.onRewound?.(stored);
    return stored;
  }
}
