/**
 * Process groups nobody owns any more: those of tool calls a dead host left running. They
 * are recorded in the recovery transaction that makes the calls `unknown` and forgotten
 * only once the host has tried to kill them, so a host that dies again before it gets
 * that far kills them at its next start.
 */
import type { Statement } from 'better-sqlite3';
import { cachedPrepare, type Db } from './database.js';

export interface OrphanGroup {
  pgid: number;
  toolCallId: string;
  /** When the tool call started (ms), or null when that was never recorded. */
  startedAt: number | null;
}

interface OrphanGroupRow {
  pgid: number;
  tool_call_id: string;
  started_at: number | null;
}

export class OrphanGroups {
  private readonly prepare: (sql: string) => Statement;

  constructor(db: Db) {
    this.prepare = cachedPrepare(db);
  }

  /** Records a group to kill; the same tool call's group is recorded once. */
  add(group: OrphanGroup): void {
    this.prepare(
      `INSERT INTO orphan_groups (tool_call_id, pgid, started_at) VALUES (?, ?, ?)
         ON CONFLICT (tool_call_id) DO NOTHING`,
    ).run(group.toolCallId, group.pgid, group.startedAt);
  }

  /** Every group still to be killed, oldest tool call first. */
  list(): OrphanGroup[] {
    const rows = this.prepare(
      'SELECT pgid, tool_call_id, started_at FROM orphan_groups ORDER BY rowid',
    ).all() as OrphanGroupRow[];
    return rows.map((row) => ({
      pgid: row.pgid,
      toolCallId: row.tool_call_id,
      startedAt: row.started_at,
    }));
  }

  /** The host has dealt with this group: killed it, or found it is not its to kill. */
  remove(toolCallId: string): void {
    this.prepare('DELETE FROM orphan_groups WHERE tool_call_id = ?').run(toolCallId);
  }
}
