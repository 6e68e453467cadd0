/**
 * Process groups of the host's stdio MCP servers, recorded right after each spawn and
 * forgotten once the group is gone, so the start after a host that died kills what it
 * left (host/mcp/mcp-servers.ts).
 */
import type { Statement } from 'better-sqlite3';
import { cachedPrepare, type Db } from './database.js';

export interface McpGroup {
  pgid: number;
  server: string;
  /** When the server was spawned (ms). */
  startedAt: number;
}

interface McpGroupRow {
  pgid: number;
  server: string;
  started_at: number;
}

export class McpGroups {
  private readonly prepare: (sql: string) => Statement;

  constructor(db: Db) {
    this.prepare = cachedPrepare(db);
  }

  add(group: McpGroup): void {
    this.prepare(
      `INSERT INTO mcp_server_groups (pgid, server, started_at) VALUES (?, ?, ?)
         ON CONFLICT (pgid) DO UPDATE SET server = excluded.server, started_at = excluded.started_at`,
    ).run(group.pgid, group.server, group.startedAt);
  }

  list(): McpGroup[] {
    const rows = this.prepare(
      'SELECT pgid, server, started_at FROM mcp_server_groups ORDER BY rowid',
    ).all() as McpGroupRow[];
    return rows.map((row) => ({ pgid: row.pgid, server: row.server, startedAt: row.started_at }));
  }

  remove(pgid: number): void {
    this.prepare('DELETE FROM mcp_server_groups WHERE pgid = ?').run(pgid);
  }
}
