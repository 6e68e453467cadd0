/**
 * Allow rules added from a remote ("Allow like this from now on", docs/policy.md): the
 * exact words of one command, for one workspace. A removed rule keeps its row, marked
 * removed, so the calls it allowed still name it.
 */
import type { Statement } from 'better-sqlite3';
import { z } from 'zod';
import { cachedPrepare, type Db } from './database.js';
import { readJsonColumn } from './json-column.js';

export interface StoredAllowRule {
  id: string;
  /** The workspace's real path. */
  workspace: string;
  words: string[];
  /** The device that added it, and its name then. */
  addedBy: string;
  addedByName: string;
  addedAt: number;
  /** The approval whose card offered it. */
  approvalId: string;
  removedAt: number | null;
  removedBy: string | null;
}

interface AllowRuleRow {
  id: string;
  workspace: string;
  words_json: string;
  added_by: string;
  added_by_name: string;
  added_at: number;
  approval_id: string;
  removed_at: number | null;
  removed_by: string | null;
}

const Words = z.array(z.string()).min(1);

function toRule(row: AllowRuleRow): StoredAllowRule {
  return {
    id: row.id,
    workspace: row.workspace,
    words: readJsonColumn(Words, row.words_json, `words of rule ${row.id}`),
    addedBy: row.added_by,
    addedByName: row.added_by_name,
    addedAt: row.added_at,
    approvalId: row.approval_id,
    removedAt: row.removed_at,
    removedBy: row.removed_by,
  };
}

export class AllowRules {
  private readonly prepare: (sql: string) => Statement;

  constructor(db: Db) {
    this.prepare = cachedPrepare(db);
  }

  insert(rule: Omit<StoredAllowRule, 'removedAt' | 'removedBy'>): void {
    this.prepare(
      `INSERT INTO allow_rules (id, workspace, words_json, added_by, added_by_name, added_at,
           approval_id) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      rule.id,
      rule.workspace,
      JSON.stringify(rule.words),
      rule.addedBy,
      rule.addedByName,
      rule.addedAt,
      rule.approvalId,
    );
  }

  /** A rule, removed or not; undefined for an id this host never gave. */
  get(id: string): StoredAllowRule | undefined {
    const row = this.prepare('SELECT * FROM allow_rules WHERE id = ?').get(id) as
      AllowRuleRow | undefined;
    return row === undefined ? undefined : toRule(row);
  }

  /** The rules in force, oldest first; only those of `workspace` when given. */
  active(workspace?: string): StoredAllowRule[] {
    const rows = (
      workspace === undefined
        ? this.prepare(
            'SELECT * FROM allow_rules WHERE removed_at IS NULL ORDER BY added_at, id',
          ).all()
        : this.prepare(
            'SELECT * FROM allow_rules WHERE removed_at IS NULL AND workspace = ? ORDER BY added_at, id',
          ).all(workspace)
    ) as AllowRuleRow[];
    return rows.map(toRule);
  }

  remove(id: string, by: string, at: number): void {
    this.prepare('UPDATE allow_rules SET removed_at = ?, removed_by = ? WHERE id = ?').run(
      at,
      by,
      id,
    );
  }
}
