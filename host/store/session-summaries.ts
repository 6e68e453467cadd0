/**
 * Rows of session summaries (docs/sessions.md): what the model wrote about a session's
 * earliest runs, which runs and events it covers, and what it cost. Append-only.
 */
import type { Statement } from 'better-sqlite3';
import { cachedPrepare, type Db } from './database.js';
import { JsonRecord, readJsonColumn } from './json-column.js';

interface SummaryRow {
  id: string;
  session_id: string;
  run_id: string;
  through_run_id: string;
  from_seq: number;
  to_seq: number;
  summary: string;
  tokens_before: number;
  tokens_after: number;
  model: string;
  usage_json: string | null;
  created_at: number;
}

/**
 * A summary of a session's earliest runs (docs/sessions.md; `run.get` sends it without
 * `throughRunId` and `usage`, docs/protocol.md §6.4). `coversSeq`: the first and last event
 * seq of the runs it covers, an earlier summary's included.
 */
export interface StoredSummary {
  id: string;
  sessionId: string;
  /** The run whose model request needed it. */
  runId: string;
  /** The last run it covers: later contexts start with the session's runs after it. */
  throughRunId: string;
  coversSeq: [number, number];
  summary: string;
  /** Estimated tokens of the context before and after (docs/sessions.md, "Counting"). */
  tokensBefore: number;
  tokensAfter: number;
  model: string;
  usage: Record<string, unknown> | null;
  createdAt: number;
}

function toSummary(row: SummaryRow): StoredSummary {
  return {
    id: row.id,
    sessionId: row.session_id,
    runId: row.run_id,
    throughRunId: row.through_run_id,
    coversSeq: [row.from_seq, row.to_seq],
    summary: row.summary,
    tokensBefore: row.tokens_before,
    tokensAfter: row.tokens_after,
    model: row.model,
    usage: row.usage_json === null ? null : readJsonColumn(JsonRecord, row.usage_json, 'usage'),
    createdAt: row.created_at,
  };
}

export class SessionSummaries {
  private readonly prepare: (sql: string) => Statement;

  constructor(db: Db) {
    this.prepare = cachedPrepare(db);
  }

  insert(summary: StoredSummary): void {
    this.prepare(
      `INSERT INTO session_summaries (id, session_id, run_id, through_run_id, from_seq, to_seq,
           summary, tokens_before, tokens_after, model, usage_json, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      summary.id,
      summary.sessionId,
      summary.runId,
      summary.throughRunId,
      summary.coversSeq[0],
      summary.coversSeq[1],
      summary.summary,
      summary.tokensBefore,
      summary.tokensAfter,
      summary.model,
      summary.usage === null ? null : JSON.stringify(summary.usage),
      summary.createdAt,
    );
  }

  /** The session's newest summary: the one later contexts start from. */
  latest(sessionId: string): StoredSummary | undefined {
    const row = this.prepare(
      'SELECT * FROM session_summaries WHERE session_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1',
    ).get(sessionId) as SummaryRow | undefined;
    return row && toSummary(row);
  }

  /** Summaries made for `runId`'s model requests, oldest first. */
  listOfRun(runId: string): StoredSummary[] {
    const rows = this.prepare(
      'SELECT * FROM session_summaries WHERE run_id = ? ORDER BY created_at, rowid',
    ).all(runId) as SummaryRow[];
    return rows.map(toSummary);
  }
}
