/**
 * Token counts summed over assistant messages, per model, from the usage each message
 * stored (`messages.usage_json`, the counts the provider gave: host/model/chat-chunk.ts).
 */
import type { Statement } from 'better-sqlite3';
import { cachedPrepare, type Db } from './database.js';

/**
 * The messages of one model (the run's `model`, null when none was known). Each `*Tokens`
 * sum covers the messages that gave that count; `*Reported` says how many did.
 */
export interface ModelUsageTotals {
  model: string | null;
  messages: number;
  reported: number;
  inputTokens: number;
  inputReported: number;
  cachedInputTokens: number;
  cachedReported: number;
  outputTokens: number;
  outputReported: number;
  reasoningTokens: number;
  reasoningReported: number;
}

interface TotalsRow {
  model: string | null;
  messages: number;
  reported: number;
  input_tokens: number | null;
  input_reported: number;
  cached_tokens: number | null;
  cached_reported: number;
  output_tokens: number | null;
  output_reported: number;
  reasoning_tokens: number | null;
  reasoning_reported: number;
}

// json_extract of a missing count is NULL: SUM skips it, COUNT does not count it.
const TOTALS = `SELECT r.model AS model, COUNT(m.id) AS messages, COUNT(m.usage_json) AS reported,
    SUM(json_extract(m.usage_json, '$.promptTokens')) AS input_tokens,
    COUNT(json_extract(m.usage_json, '$.promptTokens')) AS input_reported,
    SUM(json_extract(m.usage_json, '$.cacheHitTokens')) AS cached_tokens,
    COUNT(json_extract(m.usage_json, '$.cacheHitTokens')) AS cached_reported,
    SUM(json_extract(m.usage_json, '$.completionTokens')) AS output_tokens,
    COUNT(json_extract(m.usage_json, '$.completionTokens')) AS output_reported,
    SUM(json_extract(m.usage_json, '$.reasoningTokens')) AS reasoning_tokens,
    COUNT(json_extract(m.usage_json, '$.reasoningTokens')) AS reasoning_reported
  FROM messages m JOIN runs r ON r.id = m.run_id`;

function toTotals(row: TotalsRow): ModelUsageTotals {
  return {
    model: row.model,
    messages: row.messages,
    reported: row.reported,
    inputTokens: row.input_tokens ?? 0,
    inputReported: row.input_reported,
    cachedInputTokens: row.cached_tokens ?? 0,
    cachedReported: row.cached_reported,
    outputTokens: row.output_tokens ?? 0,
    outputReported: row.output_reported,
    reasoningTokens: row.reasoning_tokens ?? 0,
    reasoningReported: row.reasoning_reported,
  };
}

export class UsageTotals {
  private readonly prepare: (sql: string) => Statement;

  constructor(db: Db) {
    this.prepare = cachedPrepare(db);
  }

  /** A run's messages, one row per model. */
  ofRun(runId: string): ModelUsageTotals[] {
    const rows = this.prepare(`${TOTALS} WHERE m.run_id = ? GROUP BY r.model`).all(
      runId,
    ) as TotalsRow[];
    return rows.map(toTotals);
  }

  /** The messages of every run of a session, one row per model. */
  ofSession(sessionId: string): ModelUsageTotals[] {
    const rows = this.prepare(`${TOTALS} WHERE r.session_id = ? GROUP BY r.model`).all(
      sessionId,
    ) as TotalsRow[];
    return rows.map(toTotals);
  }
}
