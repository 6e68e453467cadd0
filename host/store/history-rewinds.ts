/**
 * Times the database was found to have gone back in time (table `history_rewinds`): where
 * its history ended, how far something had seen it reach, and who knew (the host's history
 * mark, or a device's cursor). Kept until the user acknowledges them on the Mac
 * (`tether history --acknowledge`); the events lost stay lost.
 */
import type { Statement } from 'better-sqlite3';
import { cachedPrepare, type Db } from './database.js';

/** Who knew of the later history: the host's own mark, or a device's cursor. */
export type RewindSource = 'mark' | 'device';

/** One time the database was found behind what was known of it. */
export interface HistoryRewind {
  id: number;
  detectedAt: number;
  source: RewindSource;
  /** The database's last event seq when it was found. */
  head: number;
  /** The highest seq known before: the mark's, or the device's cursor. */
  knownHead: number;
  /** The device whose cursor told (source `device`). */
  deviceId: string | null;
}

interface RewindRow {
  id: number;
  detected_at: number;
  source: RewindSource;
  head: number;
  known_head: number;
  device_id: string | null;
}

function toRewind(row: RewindRow): HistoryRewind {
  return {
    id: row.id,
    detectedAt: row.detected_at,
    source: row.source,
    head: row.head,
    knownHead: row.known_head,
    deviceId: row.device_id,
  };
}

/**
 * A name for the database that survives a copy (a backup restored is the same database) and
 * differs for one made afresh: when its first migration was applied.
 */
export function databaseIdentity(db: Db): string {
  const row = db.prepare('SELECT applied_at FROM schema_migrations WHERE version = 1').get() as
    { applied_at: number } | undefined;
  return `created-${row?.applied_at ?? 0}`;
}

/**
 * The highest event seq the database has handed out: the log's head, or more once a
 * rewind raised the counter past seqs that are gone (so they are never handed out again).
 */
export function allocatedHead(db: Db): number {
  const row = db
    .prepare(
      "SELECT MAX(COALESCE((SELECT MAX(seq) FROM events), 0), COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0)) AS head",
    )
    .get() as { head: number };
  return row.head;
}

/** The rewinds not yet acknowledged, oldest first; none in a database older than the table. */
export function unacknowledgedRewinds(db: Db): HistoryRewind[] {
  const table = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history_rewinds'")
    .get();
  if (table === undefined) return [];
  const rows = db
    .prepare('SELECT * FROM history_rewinds WHERE acknowledged_at IS NULL ORDER BY id')
    .all() as RewindRow[];
  return rows.map(toRewind);
}

export class HistoryRewinds {
  private readonly prepare: (sql: string) => Statement;

  constructor(private readonly db: Db) {
    this.prepare = cachedPrepare(db);
  }

  /** Records a rewind and raises the seq counter to `raiseTo` (inside a write). */
  record(rewind: Omit<HistoryRewind, 'id'>, raiseTo: number): HistoryRewind {
    const { lastInsertRowid } = this.prepare(
      'INSERT INTO history_rewinds (detected_at, source, head, known_head, device_id) VALUES (?, ?, ?, ?, ?)',
    ).run(rewind.detectedAt, rewind.source, rewind.head, rewind.knownHead, rewind.deviceId);
    this.raiseSequence(raiseTo);
    return { id: Number(lastInsertRowid), ...rewind };
  }

  unacknowledged(): HistoryRewind[] {
    return unacknowledgedRewinds(this.db);
  }

  /** Every rewind's lost seqs, acknowledged or not: `[head, knownHead]`, head excluded. */
  gaps(): [number, number][] {
    const rows = this.prepare('SELECT head, known_head FROM history_rewinds').all() as {
      head: number;
      known_head: number;
    }[];
    return rows.map((row) => [row.head, row.known_head]);
  }

  /** Marks every rewind acknowledged; returns how many were. */
  acknowledge(at: number): number {
    return this.prepare(
      'UPDATE history_rewinds SET acknowledged_at = ? WHERE acknowledged_at IS NULL',
    ).run(at).changes;
  }

  /** Makes the next event's seq `seq + 1` or more: seqs a device saw are not reused. */
  private raiseSequence(seq: number): void {
    const updated = this.prepare(
      "UPDATE sqlite_sequence SET seq = ? WHERE name = 'events' AND seq < ?",
    ).run(seq, seq).changes;
    if (updated > 0) return;
    const row = this.prepare("SELECT 1 FROM sqlite_sequence WHERE name = 'events'").get();
    if (row === undefined) {
      this.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('events', ?)").run(seq);
    }
  }
}

/**
 * The rewind in a sentence, for the log and `tether doctor`: where the history ends, who
 * knew of more, and what that means.
 */
export function describeRewind(rewind: Omit<HistoryRewind, 'id' | 'detectedAt'>): string {
  const who =
    rewind.source === 'mark'
      ? 'this host had recorded (its history mark)'
      : `device ${rewind.deviceId ?? '?'} had seen`;
  return (
    `the database went back in time: its history ends at event ${rewind.head}, before event ` +
    `${rewind.knownHead} that ${who}; it was restored from a backup or damaged, and what ` +
    `happened after event ${rewind.head} is gone from this host`
  );
}
