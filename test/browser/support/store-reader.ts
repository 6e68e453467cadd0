/**
 * The host's SQLite store read directly, read-only, while the host may be writing it: what
 * the page shows is compared with these facts, never with what the page says about itself.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';

/** Runs `read` on a fresh read-only connection to `<dataDir>/tether.db`. */
export function readStore<T>(dataDir: string, read: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'tether.db'), { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const EventRow = z.object({
  seq: z.number(),
  type: z.string(),
  run_id: z.string().nullable(),
  tool_call_id: z.string().nullable(),
  payload_json: z.string(),
});

/** One stored event, its payload parsed. */
export interface StoredEvent {
  seq: number;
  type: string;
  runId: string | null;
  toolCallId: string | null;
  payload: Record<string, unknown>;
}

const Payload = z.record(z.string(), z.unknown());

/** The store's events, in seq order, of one run or of every run. */
export function storeEvents(dataDir: string, runId?: string): StoredEvent[] {
  const rows = readStore(dataDir, (db) =>
    runId === undefined
      ? db
          .prepare('SELECT seq, type, run_id, tool_call_id, payload_json FROM events ORDER BY seq')
          .all()
      : db
          .prepare(
            'SELECT seq, type, run_id, tool_call_id, payload_json FROM events WHERE run_id = ? ORDER BY seq',
          )
          .all(runId),
  );
  return z
    .array(EventRow)
    .parse(rows)
    .map((row) => ({
      seq: row.seq,
      type: row.type,
      runId: row.run_id,
      toolCallId: row.tool_call_id,
      payload: Payload.parse(JSON.parse(row.payload_json)),
    }));
}

const RunRow = z.object({
  id: z.string(),
  state: z.string(),
  input_json: z.string(),
  command_id: z.string().nullable(),
});

/** A stored run: its id, state, task text and the command that created it. */
export interface StoredRunFacts {
  id: string;
  state: string;
  text: string;
  commandId: string | null;
}

const RunInput = z.looseObject({ text: z.string() });

/** The store's runs, oldest first. */
export function storeRuns(dataDir: string): StoredRunFacts[] {
  const rows = readStore(dataDir, (db) =>
    db.prepare('SELECT id, state, input_json, command_id FROM runs ORDER BY created_at, id').all(),
  );
  return z
    .array(RunRow)
    .parse(rows)
    .map((row) => ({
      id: row.id,
      state: row.state,
      text: RunInput.parse(JSON.parse(row.input_json)).text,
      commandId: row.command_id,
    }));
}

const ToolCallRow = z.object({ id: z.string(), name: z.string(), state: z.string() });

/** The tool calls the store holds for `runId`, in the order the model proposed them. */
export function storeToolCalls(dataDir: string, runId: string): Array<z.infer<typeof ToolCallRow>> {
  const rows = readStore(dataDir, (db) =>
    db
      .prepare(
        'SELECT id, name, state FROM tool_calls WHERE run_id = ? ORDER BY created_at, position',
      )
      .all(runId),
  );
  return z.array(ToolCallRow).parse(rows);
}

const DeviceRow = z.object({
  device_id: z.string(),
  name: z.string(),
  revoked_at: z.number().nullable(),
});

/** The paired devices the store holds, with whether each is revoked. */
export function storeDevices(
  dataDir: string,
): Array<{ deviceId: string; name: string; revoked: boolean }> {
  const rows = readStore(dataDir, (db) =>
    db.prepare('SELECT device_id, name, revoked_at FROM devices ORDER BY paired_at').all(),
  );
  return z
    .array(DeviceRow)
    .parse(rows)
    .map((row) => ({ deviceId: row.device_id, name: row.name, revoked: row.revoked_at !== null }));
}
