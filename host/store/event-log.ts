/**
 * The append-only event log. Seq is assigned by SQLite inside the committing transaction.
 */
import type { Statement } from 'better-sqlite3';
import {
  parseWith,
  Event,
  keepEventJson,
  type NewEvent,
  quickSafeParse,
} from '../../protocol/index.js';
import type { Redactor } from '../log/index.js';
import { BOUND_LIMIT, cachedPrepare, type Db } from './database.js';
import { maskedJson } from './masked-json.js';

/**
 * A row as `.raw()` reads it, in {@link COLUMNS} order: an array, not an object per row
 * (a replay reads thousands).
 */
type EventRow = [
  seq: number,
  type: string,
  at: number,
  sessionId: string | null,
  runId: string | null,
  toolCallId: string | null,
  payloadJson: string,
];
const COLUMNS = 'seq, type, at, session_id, run_id, tool_call_id, payload_json';

/** Which events a reader wants: all, one session's, or one run's. */
export type EventScope = { sessionId: string } | { runId: string } | Record<string, never>;

function eventId(seq: number): string {
  return `evt_${seq}`;
}

/**
 * A stored row as an event, validated as every row read back is (rows of older versions
 * included). One the quick check accepts is exactly its stored text, which is kept for
 * its frames; one only zod accepts is zod's output (its text is made again when sent).
 */
function toEvent([seq, type, at, sessionId, runId, toolCallId, payloadJson]: EventRow): Event {
  const candidate = {
    v: 1,
    seq,
    id: eventId(seq),
    type,
    at,
    sessionId,
    runId,
    toolCallId,
    payload: JSON.parse(payloadJson) as unknown,
  };
  const parsed = quickSafeParse(Event, candidate);
  // Refused: parsed again for the error that names every issue (a row gone wrong, rare).
  if (!parsed.success) return parseWith(Event, candidate, `stored event ${seq}`) as Event;
  if (parsed.data !== candidate) return parsed.data as Event;
  return keepEventJson(candidate as Event, payloadJson);
}

export class EventLog {
  private readonly insert: Statement;
  private readonly headStatement: Statement<[], { seq: number | null }>;
  private readonly prepare: (sql: string) => Statement;

  /** `secrets`: masked in every payload before it is stored or published. */
  constructor(
    private readonly db: Db,
    private readonly secrets: Redactor | null = null,
  ) {
    this.prepare = cachedPrepare(db);
    this.insert = db.prepare(
      'INSERT INTO events (type, at, session_id, run_id, tool_call_id, payload_json) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.headStatement = db.prepare('SELECT MAX(seq) AS seq FROM events');
  }

  /**
   * Appends inside the caller's write transaction; the event is not visible until commit.
   * The returned event carries the payload as stored, secrets masked.
   */
  append(event: NewEvent, at: number): Event {
    if (!this.db.inTransaction) throw new Error('events are appended inside a write transaction');
    const payload = maskedJson(event.payload, this.secrets);
    const info = this.insert.run(
      event.type,
      at,
      event.sessionId ?? null,
      event.runId ?? null,
      event.toolCallId ?? null,
      payload.json,
    );
    const seq = Number(info.lastInsertRowid);
    const stored = {
      v: 1,
      seq,
      id: eventId(seq),
      type: event.type,
      at,
      sessionId: event.sessionId ?? null,
      runId: event.runId ?? null,
      toolCallId: event.toolCallId ?? null,
      payload: payload.value,
    } as Event;
    return keepEventJson(stored, payload.json);
  }

  /** The highest committed seq, 0 when the log is empty. */
  head(): number {
    return this.headStatement.get()?.seq ?? 0;
  }

  /** The first and last seq of a run's committed events; undefined when it has none. */
  seqRangeOfRun(runId: string): [number, number] | undefined {
    const row = this.prepare(
      'SELECT MIN(seq) AS first, MAX(seq) AS last FROM events WHERE run_id = ?',
    ).get(runId) as { first: number | null; last: number | null };
    return row.first === null || row.last === null ? undefined : [row.first, row.last];
  }

  /** Committed events with `seq > afterSeq` in scope, ascending, at most `limit`. */
  after(afterSeq: number, scope: EventScope = {}, limit = 1000): Event[] {
    let rows: EventRow[];
    if ('runId' in scope) {
      rows = this.prepare(
        `SELECT ${COLUMNS} FROM events WHERE run_id = ? AND seq > ? ORDER BY seq ${BOUND_LIMIT}`,
      )
        .raw()
        .all(scope.runId, afterSeq, limit) as EventRow[];
    } else if ('sessionId' in scope) {
      rows = this.prepare(
        `SELECT ${COLUMNS} FROM events WHERE session_id = ? AND seq > ? ORDER BY seq ${BOUND_LIMIT}`,
      )
        .raw()
        .all(scope.sessionId, afterSeq, limit) as EventRow[];
    } else {
      rows = this.prepare(`SELECT ${COLUMNS} FROM events WHERE seq > ? ORDER BY seq ${BOUND_LIMIT}`)
        .raw()
        .all(afterSeq, limit) as EventRow[];
    }
    return rows.map(toEvent);
  }
}
