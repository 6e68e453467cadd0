/**
 * The host's SQLite store read directly, read-only, while the host may be writing it: what
 * the page shows is compared with these facts, never with what the page says about itself.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';

/** The store's events, in seq order, of one run or of every run. */
export { readStoredEvents as storeEvents } from '../../support/store-events.js';

/** Runs `read` on a fresh read-only connection to `<dataDir>/tether.db`. */
export function readStore<T>(dataDir: string, read: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'tether.db'), { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
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
