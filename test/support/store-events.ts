/**
 * The one reader of a host's `events` table in tests: a fresh read-only connection to the
 * SQLite file, so it works while the host writes and after it died.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';

/** An event row of the store, as the wire shows it, its payload parsed. */
export interface StoredEvent {
  seq: number;
  id: string;
  type: string;
  at: number;
  sessionId: string | null;
  runId: string | null;
  toolCallId: string | null;
  payload: Record<string, unknown>;
}

const EventRow = z.object({
  seq: z.number(),
  type: z.string(),
  at: z.number(),
  session_id: z.string().nullable(),
  run_id: z.string().nullable(),
  tool_call_id: z.string().nullable(),
  payload_json: z.string(),
});

const Payload = z.record(z.string(), z.unknown());

/** The events of `<dataDir>/tether.db`, of one run or of all, seq ascending. */
export function readStoredEvents(dataDir: string, runId?: string): StoredEvent[] {
  const db = new Database(join(dataDir, 'tether.db'), { readonly: true, fileMustExist: true });
  try {
    const rows =
      runId === undefined
        ? db.prepare('SELECT * FROM events ORDER BY seq').all()
        : db.prepare('SELECT * FROM events WHERE run_id = ? ORDER BY seq').all(runId);
    return z
      .array(EventRow)
      .parse(rows)
      .map((row) => ({
        seq: row.seq,
        id: `evt_${row.seq}`,
        type: row.type,
        at: row.at,
        sessionId: row.session_id,
        runId: row.run_id,
        toolCallId: row.tool_call_id,
        payload: Payload.parse(JSON.parse(row.payload_json)),
      }));
  } finally {
    db.close();
  }
}
