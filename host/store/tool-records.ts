/**
 * Rows of tool calls, approvals and artifacts, and their protocol records.
 */
import { z } from 'zod';
import {
  AllowedBy,
  ApprovalPreview,
  type Approval,
  type ApprovalState,
  type Artifact,
  type ToolCall,
  type ToolCallState,
} from '../../protocol/index.js';
import type { Statement } from 'better-sqlite3';
import { cachedPrepare, type Db } from './database.js';
import { JsonRecord, readJsonColumn } from './json-column.js';

interface ToolCallRow {
  id: string;
  run_id: string;
  message_id: string;
  model_call_id: string;
  position: number;
  name: string;
  input_json: string;
  input_digest: string;
  state: ToolCallState;
  attempt: number;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  result_json: string | null;
  model_content: string | null;
  output_path: string | null;
  output_bytes: number | null;
  output_sha256: string | null;
  output_truncated: number | null;
  process_group: number | null;
  allowed_by_json: string | null;
}

/** Where a tool call's full output lives on disk and what it holds. */
export interface OutputFile {
  path: string;
  bytes: number;
  sha256: string;
  truncated: boolean;
}

/** A tool call with the host-only facts the protocol record leaves out. */
export interface StoredToolCall extends ToolCall {
  messageId: string;
  modelCallId: string;
  position: number;
  attempt: number;
  createdAt: number;
  /** Exactly what the model was given as this call's result. */
  modelContent: string | null;
  output: OutputFile | null;
  processGroup: number | null;
}

interface ApprovalRow {
  id: string;
  tool_call_id: string;
  run_id: string;
  state: ApprovalState;
  name: string;
  input_json: string;
  workspace: string;
  input_digest: string;
  preview_json: string;
  reason: string;
  created_at: number;
  expires_at: number;
  decided_by: string | null;
  decided_at: number | null;
}

interface ArtifactRow {
  id: string;
  run_id: string;
  tool_call_id: string | null;
  kind: string;
  name: string;
  bytes: number;
  sha256: string;
  path: string;
  created_at: number;
}

export interface StoredArtifact extends Artifact {
  path: string;
}

function toToolCall(row: ToolCallRow): StoredToolCall {
  return {
    id: row.id,
    runId: row.run_id,
    name: row.name,
    input: readJsonColumn(z.unknown(), row.input_json, 'tool input'),
    inputDigest: row.input_digest,
    state: row.state,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    result: row.result_json === null ? null : readJsonColumn(JsonRecord, row.result_json, 'result'),
    messageId: row.message_id,
    modelCallId: row.model_call_id,
    position: row.position,
    attempt: row.attempt,
    createdAt: row.created_at,
    modelContent: row.model_content,
    output:
      row.output_path === null
        ? null
        : {
            path: row.output_path,
            bytes: row.output_bytes ?? 0,
            sha256: row.output_sha256 ?? '',
            truncated: row.output_truncated === 1,
          },
    processGroup: row.process_group,
    ...(row.allowed_by_json === null
      ? {}
      : { allowedBy: readJsonColumn(AllowedBy, row.allowed_by_json, 'allowed by') }),
  };
}

function toApproval(row: ApprovalRow): Approval {
  return {
    id: row.id,
    toolCallId: row.tool_call_id,
    runId: row.run_id,
    state: row.state,
    name: row.name,
    input: readJsonColumn(z.unknown(), row.input_json, 'approval input'),
    workspace: row.workspace,
    inputDigest: row.input_digest,
    preview: readJsonColumn(ApprovalPreview, row.preview_json, 'approval preview'),
    reason: row.reason,
    expiresAt: row.expires_at,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at,
  };
}

function toArtifact(row: ArtifactRow): StoredArtifact {
  return {
    id: row.id,
    runId: row.run_id,
    toolCallId: row.tool_call_id,
    kind: row.kind,
    name: row.name,
    bytes: row.bytes,
    sha256: row.sha256,
    createdAt: row.created_at,
    path: row.path,
  };
}

export class ToolRecords {
  private readonly prepare: (sql: string) => Statement;

  constructor(db: Db) {
    this.prepare = cachedPrepare(db);
  }

  insertToolCall(call: StoredToolCall): void {
    this.prepare(
      `INSERT INTO tool_calls (id, run_id, message_id, model_call_id, position, name, input_json,
           input_digest, state, attempt, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      call.id,
      call.runId,
      call.messageId,
      call.modelCallId,
      call.position,
      call.name,
      JSON.stringify(call.input),
      call.inputDigest,
      call.state,
      call.attempt,
      call.createdAt,
    );
  }

  getToolCall(id: string): StoredToolCall | undefined {
    const row = this.prepare('SELECT * FROM tool_calls WHERE id = ?').get(id) as
      ToolCallRow | undefined;
    return row && toToolCall(row);
  }

  listToolCalls(runId: string): StoredToolCall[] {
    const rows = this.prepare(
      'SELECT * FROM tool_calls WHERE run_id = ? ORDER BY created_at, position',
    ).all(runId) as ToolCallRow[];
    return rows.map(toToolCall);
  }

  listToolCallsOfMessage(messageId: string): StoredToolCall[] {
    const rows = this.prepare(
      'SELECT * FROM tool_calls WHERE message_id = ? ORDER BY position',
    ).all(messageId) as ToolCallRow[];
    return rows.map(toToolCall);
  }

  /** A run's tool calls in one of `states`, in the order they were proposed. */
  listToolCallsInState(runId: string, states: readonly ToolCallState[]): StoredToolCall[] {
    const rows = this.prepare(
      `SELECT * FROM tool_calls WHERE run_id = ? AND state IN (${states.map(() => '?').join(', ')})
         ORDER BY created_at, position`,
    ).all(runId, ...states) as ToolCallRow[];
    return rows.map(toToolCall);
  }

  /**
   * Tool calls in `states` of the session's runs up to and including `throughRunId`, in
   * the order they were made.
   */
  listToolCallsOfSessionThrough(
    sessionId: string,
    throughRunId: string,
    states: readonly ToolCallState[],
  ): StoredToolCall[] {
    const rows = this.prepare(
      `SELECT tc.* FROM tool_calls tc JOIN runs r ON r.id = tc.run_id, runs through
         WHERE through.id = ? AND r.session_id = ?
           AND (r.created_at, r.rowid) <= (through.created_at, through.rowid)
           AND tc.state IN (SELECT value FROM json_each(?))
         ORDER BY r.created_at, r.rowid, tc.created_at, tc.position`,
    ).all(throughRunId, sessionId, JSON.stringify(states)) as ToolCallRow[];
    return rows.map(toToolCall);
  }

  updateToolCall(
    id: string,
    change: Partial<
      Pick<
        StoredToolCall,
        | 'state'
        | 'startedAt'
        | 'finishedAt'
        | 'result'
        | 'attempt'
        | 'modelContent'
        | 'output'
        | 'processGroup'
      >
    >,
  ): void {
    const call = this.getToolCall(id);
    if (call === undefined) throw new Error(`no tool call ${id}`);
    const next = { ...call, ...change };
    this.prepare(
      `UPDATE tool_calls SET state = ?, started_at = ?, finished_at = ?, result_json = ?, attempt = ?,
           model_content = ?, output_path = ?, output_bytes = ?, output_sha256 = ?,
           output_truncated = ?, process_group = ? WHERE id = ?`,
    ).run(
      next.state,
      next.startedAt,
      next.finishedAt,
      next.result === null ? null : JSON.stringify(next.result),
      next.attempt,
      next.modelContent,
      next.output?.path ?? null,
      next.output?.bytes ?? null,
      next.output?.sha256 ?? null,
      next.output === null ? null : next.output.truncated ? 1 : 0,
      next.processGroup,
      id,
    );
  }

  /** Records the rule added from a remote that let this call run unasked. */
  recordAllowedBy(id: string, allowedBy: AllowedBy): void {
    this.prepare('UPDATE tool_calls SET allowed_by_json = ? WHERE id = ?').run(
      JSON.stringify(allowedBy),
      id,
    );
  }

  insertApproval(approval: Approval, createdAt: number): void {
    this.prepare(
      `INSERT INTO approvals (id, tool_call_id, run_id, state, name, input_json, workspace,
           input_digest, preview_json, reason, created_at, expires_at, decided_by)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      approval.id,
      approval.toolCallId,
      approval.runId,
      approval.state,
      approval.name,
      JSON.stringify(approval.input),
      approval.workspace,
      approval.inputDigest,
      JSON.stringify(approval.preview),
      approval.reason,
      createdAt,
      approval.expiresAt,
      approval.decidedBy,
    );
  }

  getApproval(id: string): Approval | undefined {
    const row = this.prepare('SELECT * FROM approvals WHERE id = ?').get(id) as
      ApprovalRow | undefined;
    return row && toApproval(row);
  }

  listApprovals(filter: { runId?: string; state?: ApprovalState }): Approval[] {
    const where: string[] = [];
    const params: string[] = [];
    if (filter.runId !== undefined) {
      where.push('run_id = ?');
      params.push(filter.runId);
    }
    if (filter.state !== undefined) {
      where.push('state = ?');
      params.push(filter.state);
    }
    const sql = `SELECT * FROM approvals ${where.length > 0 ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY created_at, rowid`;
    return (this.prepare(sql).all(...params) as ApprovalRow[]).map(toApproval);
  }

  resolveApproval(id: string, state: ApprovalState, decidedBy: string, at: number): void {
    this.prepare('UPDATE approvals SET state = ?, decided_by = ?, decided_at = ? WHERE id = ?').run(
      state,
      decidedBy,
      at,
      id,
    );
  }

  insertArtifact(artifact: StoredArtifact): void {
    this.prepare(
      `INSERT INTO artifacts (id, run_id, tool_call_id, kind, name, bytes, sha256, path, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      artifact.id,
      artifact.runId,
      artifact.toolCallId,
      artifact.kind,
      artifact.name,
      artifact.bytes,
      artifact.sha256,
      artifact.path,
      artifact.createdAt,
    );
  }

  getArtifact(id: string): StoredArtifact | undefined {
    const row = this.prepare('SELECT * FROM artifacts WHERE id = ?').get(id) as
      ArtifactRow | undefined;
    return row && toArtifact(row);
  }

  listArtifacts(runId: string): StoredArtifact[] {
    const rows = this.prepare(
      'SELECT * FROM artifacts WHERE run_id = ? ORDER BY created_at, rowid',
    ).all(runId) as ArtifactRow[];
    return rows.map(toArtifact);
  }
}
