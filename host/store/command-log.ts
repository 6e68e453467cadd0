/**
 * Commands already applied, so a resent command returns its first result (docs/protocol.md §6.1).
 */
import { JsonRecord, readJsonColumn } from './json-column.js';
import type { Statement } from 'better-sqlite3';
import { cachedPrepare, type Db } from './database.js';

export interface StoredCommand {
  commandId: string;
  op: string;
  argsDigest: string;
  deviceId: string;
  result: Record<string, unknown>;
  createdAt: number;
}

interface CommandRow {
  command_id: string;
  op: string;
  args_digest: string;
  device_id: string;
  result_json: string;
  created_at: number;
}

export class CommandLog {
  private readonly prepare: (sql: string) => Statement;

  constructor(db: Db) {
    this.prepare = cachedPrepare(db);
  }

  find(commandId: string): StoredCommand | undefined {
    const row = this.prepare('SELECT * FROM commands WHERE command_id = ?').get(commandId) as
      CommandRow | undefined;
    if (row === undefined) return undefined;
    return {
      commandId: row.command_id,
      op: row.op,
      argsDigest: row.args_digest,
      deviceId: row.device_id,
      result: readJsonColumn(JsonRecord, row.result_json, `result of command ${row.command_id}`),
      createdAt: row.created_at,
    };
  }

  record(command: StoredCommand): void {
    this.prepare(
      'INSERT INTO commands (command_id, op, args_digest, device_id, result_json, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(
      command.commandId,
      command.op,
      command.argsDigest,
      command.deviceId,
      JSON.stringify(command.result),
      command.createdAt,
    );
  }

  /** Forgets commands older than `before` (kept at least 30 days, section 6.1). */
  pruneBefore(before: number): number {
    return this.prepare('DELETE FROM commands WHERE created_at < ?').run(before).changes;
  }
}
