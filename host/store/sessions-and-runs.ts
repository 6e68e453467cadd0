/**
 * Sessions, runs and assistant messages in SQLite: written, changed, listed and searched.
 */
import type { RunState, Session } from '../../protocol/index.js';
import type { Redactor } from '../log/index.js';
import type { Statement } from 'better-sqlite3';
import { BOUND_LIMIT, cachedPrepare, type Db } from './database.js';
import { maskedJson } from './masked-json.js';
import {
  SESSION_SELECT,
  toMessage,
  toRun,
  toSession,
  type MessageRow,
  type RunRow,
  type SessionRow,
  type StoredMessage,
  type StoredRun,
} from './session-run-rows.js';

/** Page cursor: rows created before (createdAt, id). */
export interface PageCursor {
  createdAt: number;
  id: string;
}

export class SessionsAndRuns {
  private readonly prepare: (sql: string) => Statement;
  private runStateChanges = 0;

  /** `secrets`: masked in every run error before it is stored. */
  constructor(
    db: Db,
    private readonly secrets: Redactor | null = null,
  ) {
    this.prepare = cachedPrepare(db);
    // SQLite's LIKE and lower() fold ASCII only; this folds every script, and takes the
    // needle literally (no wildcards to escape).
    db.function('tether_contains', { deterministic: true }, (text, needle) =>
      typeof text === 'string' && typeof needle === 'string' && text.toLowerCase().includes(needle)
        ? 1
        : 0,
    );
  }

  insertSession(session: Session): void {
    this.prepare(
      'INSERT INTO sessions (id, title, workspace, created_at, active_run_id) VALUES (?, ?, ?, ?, ?)',
    ).run(session.id, session.title, session.workspace, session.createdAt, session.activeRunId);
  }

  getSession(id: string): Session | undefined {
    const row = this.prepare(`${SESSION_SELECT} WHERE sessions.id = ?`).get(id) as
      SessionRow | undefined;
    return row && toSession(row);
  }

  setActiveRun(sessionId: string, runId: string | null): void {
    this.prepare('UPDATE sessions SET active_run_id = ? WHERE id = ?').run(runId, sessionId);
  }

  listSessions(limit: number, before?: PageCursor): Session[] {
    const rows = (
      before
        ? this.prepare(
            `${SESSION_SELECT} WHERE (sessions.created_at, sessions.id) < (?, ?)
               ORDER BY sessions.created_at DESC, sessions.id DESC ${BOUND_LIMIT}`,
          ).all(before.createdAt, before.id, limit)
        : this.prepare(
            `${SESSION_SELECT} ORDER BY sessions.created_at DESC, sessions.id DESC ${BOUND_LIMIT}`,
          ).all(limit)
    ) as SessionRow[];
    return rows.map(toSession);
  }

  /**
   * How many times a run was inserted or changed state through this store (rolled-back
   * ones included): while it stays the same, so does every run's state.
   */
  get stateChanges(): number {
    return this.runStateChanges;
  }

  insertRun(run: StoredRun): void {
    this.runStateChanges++;
    this.prepare(
      `INSERT INTO runs (id, session_id, state, input_json, model, created_at, started_at,
           finished_at, continues_run_id, error_json, command_id, created_by, idle_at, agent)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      run.id,
      run.sessionId,
      run.state,
      JSON.stringify(run.input),
      run.model,
      run.createdAt,
      run.startedAt,
      run.finishedAt,
      run.continuesRunId,
      run.error === null ? null : maskedJson(run.error, this.secrets).json,
      run.commandId,
      run.createdBy,
      run.idleAt,
      run.agent ?? null,
    );
  }

  /** Records the agent's own session id for the run (docs/agents.md). */
  setAgentSession(runId: string, agentSession: string): void {
    this.prepare('UPDATE runs SET agent_session = ? WHERE id = ?').run(agentSession, runId);
  }

  /**
   * Who works the session's newest run: its agent's name, null for the host's own loop,
   * undefined when the session has no run (one column read: run.submit asks at each call).
   */
  newestRunAgent(sessionId: string): string | null | undefined {
    const row = this.prepare(
      'SELECT agent FROM runs WHERE session_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1',
    ).get(sessionId) as { agent: string | null } | undefined;
    return row?.agent;
  }

  /**
   * The agent session the session's latest earlier run of `agent` worked in, to load again
   * for the next run; undefined when none recorded one.
   */
  lastAgentSession(sessionId: string, agent: string): string | undefined {
    const found = this.prepare(
      `SELECT agent_session FROM runs WHERE session_id = ? AND agent = ?
         AND agent_session IS NOT NULL ORDER BY created_at DESC, rowid DESC LIMIT 1`,
    )
      .pluck()
      .get(sessionId, agent) as string | undefined;
    return found;
  }

  getRun(id: string): StoredRun | undefined {
    const row = this.prepare('SELECT * FROM runs WHERE id = ?').get(id) as RunRow | undefined;
    return row && toRun(row);
  }

  /** Writes the run's state and the timestamps and error that go with it. */
  updateRun(
    id: string,
    change: Partial<Pick<StoredRun, 'state' | 'startedAt' | 'finishedAt' | 'error' | 'idleAt'>>,
  ): void {
    const run = this.getRun(id);
    if (run === undefined) throw new Error(`no run ${id}`);
    const next = { ...run, ...change };
    if (next.state !== run.state) this.runStateChanges++;
    this.prepare(
      'UPDATE runs SET state = ?, started_at = ?, finished_at = ?, error_json = ?, idle_at = ? WHERE id = ?',
    ).run(
      next.state,
      next.startedAt,
      next.finishedAt,
      next.error === null ? null : maskedJson(next.error, this.secrets).json,
      next.idleAt,
      id,
    );
  }

  listRuns(filter: {
    sessionId?: string;
    states?: readonly RunState[];
    limit: number;
    before?: PageCursor;
    order?: 'newest' | 'oldest';
    /** Text the run's task, its session's title or one of its answers holds. */
    query?: string;
  }): StoredRun[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.sessionId !== undefined) {
      where.push('session_id = ?');
      params.push(filter.sessionId);
    }
    if (filter.states !== undefined && filter.states.length > 0) {
      where.push(`state IN (${filter.states.map(() => '?').join(', ')})`);
      params.push(...filter.states);
    }
    if (filter.before !== undefined) {
      // The page's order within one millisecond is the insert order (rowid), so the cursor
      // run is placed by its rowid: comparing ids, random, skipped or repeated runs.
      where.push('(created_at, rowid) < (?, (SELECT rowid FROM runs WHERE id = ?))');
      params.push(filter.before.createdAt, filter.before.id);
    }
    if (filter.query !== undefined) {
      where.push(`(tether_contains(json_extract(input_json, '$.text'), ?)
        OR EXISTS (SELECT 1 FROM sessions s WHERE s.id = runs.session_id AND tether_contains(s.title, ?))
        OR EXISTS (SELECT 1 FROM messages m WHERE m.run_id = runs.id AND tether_contains(m.text, ?)))`);
      const needle = filter.query.toLowerCase();
      params.push(needle, needle, needle);
    }
    const direction = filter.order === 'oldest' ? 'ASC' : 'DESC';
    const sql = `SELECT * FROM runs ${where.length > 0 ? 'WHERE ' + where.join(' AND ') : ''}
      ORDER BY created_at ${direction}, rowid ${direction} ${BOUND_LIMIT}`;
    return (this.prepare(sql).all(...params, filter.limit) as RunRow[]).map(toRun);
  }

  /** The session's newest runs after `afterRunId` (all when null), newest first, at most `limit`. */
  listRunsAfter(sessionId: string, afterRunId: string | null, limit: number): StoredRun[] {
    const rows = (
      afterRunId === null
        ? this.prepare(
            `SELECT * FROM runs WHERE session_id = ? ORDER BY created_at DESC, rowid DESC ${BOUND_LIMIT}`,
          ).all(sessionId, limit)
        : this.prepare(
            `SELECT r.* FROM runs r, runs after WHERE after.id = ? AND r.session_id = ?
                 AND (r.created_at, r.rowid) > (after.created_at, after.rowid)
               ORDER BY r.created_at DESC, r.rowid DESC ${BOUND_LIMIT}`,
          ).all(afterRunId, sessionId, limit)
    ) as RunRow[];
    return rows.map(toRun);
  }

  /** The session's runs in `states` up to and including `throughRunId`, oldest first. */
  listRunsThrough(
    sessionId: string,
    throughRunId: string,
    states: readonly RunState[],
  ): StoredRun[] {
    const rows = this.prepare(
      `SELECT r.* FROM runs r, runs through WHERE through.id = ? AND r.session_id = ?
           AND (r.created_at, r.rowid) <= (through.created_at, through.rowid)
           AND r.state IN (SELECT value FROM json_each(?))
         ORDER BY r.created_at, r.rowid`,
    ).all(throughRunId, sessionId, JSON.stringify(states)) as RunRow[];
    return rows.map(toRun);
  }

  /** Ids of the runs parked for approval, oldest first (the scheduler's look at start). */
  listParkedRunIds(): string[] {
    return this.prepare(
      "SELECT id FROM runs WHERE state = 'waiting_for_approval' ORDER BY created_at, rowid",
    )
      .pluck()
      .all() as string[];
  }

  /** Runs that started and finished but whose `session.idle` was never recorded. */
  listRunsAwaitingIdle(): StoredRun[] {
    const rows = this.prepare(
      `SELECT * FROM runs WHERE idle_at IS NULL AND started_at IS NOT NULL
           AND state IN ('succeeded', 'failed', 'cancelled', 'interrupted') ORDER BY created_at`,
    ).all() as RunRow[];
    return rows.map(toRun);
  }

  insertMessage(message: StoredMessage): void {
    this.prepare(
      `INSERT INTO messages (id, run_id, text, reasoning, finish_reason, usage_json, provider,
           native_json, tool_calls_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      message.id,
      message.runId,
      message.text,
      message.reasoning,
      message.finishReason,
      message.usage === null ? null : JSON.stringify(message.usage),
      message.provider,
      JSON.stringify(message.native),
      JSON.stringify(message.toolCalls),
      message.createdAt,
    );
  }

  /** Ids of a run's messages, oldest first: cheap, for callers that cache messages. */
  listMessageIds(runId: string): string[] {
    const rows = this.prepare(
      'SELECT id FROM messages WHERE run_id = ? ORDER BY created_at, rowid',
    ).all(runId) as { id: string }[];
    return rows.map((row) => row.id);
  }

  getMessage(id: string): StoredMessage | undefined {
    const row = this.prepare('SELECT * FROM messages WHERE id = ?').get(id) as
      MessageRow | undefined;
    return row && toMessage(row);
  }

  countMessages(runId: string): number {
    const row = this.prepare('SELECT COUNT(*) AS n FROM messages WHERE run_id = ?').get(runId) as {
      n: number;
    };
    return row.n;
  }

  listMessages(runId: string): StoredMessage[] {
    const rows = this.prepare(
      'SELECT * FROM messages WHERE run_id = ? ORDER BY created_at, rowid',
    ).all(runId) as MessageRow[];
    return rows.map(toMessage);
  }
}
