/**
 * Sessions whose runs work in a git worktree of their own (docs/worktrees.md): recorded
 * at the submit that made the session, given their git folder once git made them, their
 * head and tree at each run's end, and the user's answer. An answer being applied is
 * noted first (`pending`), so a host that stops while git works finishes it at start.
 */
import type { Statement } from 'better-sqlite3';
import { z } from 'zod';
import type { IntegrateAction, SessionWorktree } from '../../protocol/index.js';
import { cachedPrepare, type Db } from './database.js';
import { readJsonColumn } from './json-column.js';

type WorktreeState = SessionWorktree['state'];

/** An answer being applied: who gave it, under which command. */
export interface PendingIntegration {
  action: IntegrateAction;
  commandId: string;
  runId: string;
  treeDigest: string;
  by: string;
}

const PendingIntegration = z.object({
  action: z.enum(['merge', 'keep', 'discard']),
  commandId: z.string(),
  runId: z.string(),
  treeDigest: z.string(),
  by: z.string(),
});

export interface StoredWorktree {
  sessionId: string;
  /** Real path of the user's workspace (the repository's top folder). */
  repository: string;
  commonDir: string;
  path: string;
  branch: string;
  base: string;
  /** The worktree's own git folder, once git made it. */
  gitDir: string | null;
  state: WorktreeState;
  head: string | null;
  tree: string | null;
  createdAt: number;
  endedAt: number | null;
  pending: PendingIntegration | null;
}

interface WorktreeRow {
  session_id: string;
  repository: string;
  common_dir: string;
  path: string;
  branch: string;
  base: string;
  git_dir: string | null;
  state: WorktreeState;
  head: string | null;
  tree: string | null;
  created_at: number;
  ended_at: number | null;
  pending_json: string | null;
}

function toWorktree(row: WorktreeRow): StoredWorktree {
  return {
    sessionId: row.session_id,
    repository: row.repository,
    commonDir: row.common_dir,
    path: row.path,
    branch: row.branch,
    base: row.base,
    gitDir: row.git_dir,
    state: row.state,
    head: row.head,
    tree: row.tree,
    createdAt: row.created_at,
    endedAt: row.ended_at,
    pending:
      row.pending_json === null
        ? null
        : readJsonColumn(PendingIntegration, row.pending_json, 'pending integration'),
  };
}

export class Worktrees {
  private readonly prepare: (sql: string) => Statement;

  constructor(db: Db) {
    this.prepare = cachedPrepare(db);
  }

  insert(worktree: Omit<StoredWorktree, 'gitDir' | 'head' | 'tree' | 'endedAt' | 'pending'>): void {
    this.prepare(
      `INSERT INTO worktrees (session_id, repository, common_dir, path, branch, base, state, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      worktree.sessionId,
      worktree.repository,
      worktree.commonDir,
      worktree.path,
      worktree.branch,
      worktree.base,
      worktree.state,
      worktree.createdAt,
    );
  }

  get(sessionId: string): StoredWorktree | undefined {
    const row = this.prepare('SELECT * FROM worktrees WHERE session_id = ?').get(sessionId) as
      WorktreeRow | undefined;
    return row && toWorktree(row);
  }

  /** Every worktree not yet answered, or with an answer being applied. */
  listOpen(): StoredWorktree[] {
    const rows = this.prepare(
      "SELECT * FROM worktrees WHERE state = 'active' OR pending_json IS NOT NULL ORDER BY created_at",
    ).all() as WorktreeRow[];
    return rows.map(toWorktree);
  }

  setGitDir(sessionId: string, gitDir: string): void {
    this.prepare('UPDATE worktrees SET git_dir = ? WHERE session_id = ?').run(gitDir, sessionId);
  }

  setHead(sessionId: string, head: string, tree: string): void {
    this.prepare('UPDATE worktrees SET head = ?, tree = ? WHERE session_id = ?').run(
      head,
      tree,
      sessionId,
    );
  }

  setPending(sessionId: string, pending: PendingIntegration | null): void {
    this.prepare('UPDATE worktrees SET pending_json = ? WHERE session_id = ?').run(
      pending === null ? null : JSON.stringify(pending),
      sessionId,
    );
  }

  /** Records the answer applied: the state it leaves, and no pending answer. */
  end(sessionId: string, state: Exclude<WorktreeState, 'active'>, at: number): void {
    this.prepare(
      'UPDATE worktrees SET state = ?, ended_at = ?, pending_json = NULL WHERE session_id = ?',
    ).run(state, at, sessionId);
  }
}
