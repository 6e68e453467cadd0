/**
 * The rows of sessions, runs and assistant messages, and the records they are read back
 * as: the protocol's, with the host-only facts of runs and messages.
 */
import { z } from 'zod';
import {
  RunError,
  type Message,
  type Run,
  type RunState,
  type Session,
  type SessionWorktree,
} from '../../protocol/index.js';
import { JsonRecord, readJsonColumn } from './json-column.js';

export interface SessionRow {
  id: string;
  title: string;
  workspace: string;
  created_at: number;
  active_run_id: string | null;
  /** From the session's worktree row, when it has one (SESSION_COLUMNS). */
  wt_branch: string | null;
  wt_base: string | null;
  wt_state: SessionWorktree['state'] | null;
  wt_head: string | null;
  wt_tree: string | null;
}

/** A session with its worktree's columns, when it has one. */
export const SESSION_SELECT = `SELECT sessions.*, w.branch AS wt_branch, w.base AS wt_base,
  w.state AS wt_state, w.head AS wt_head, w.tree AS wt_tree
  FROM sessions LEFT JOIN worktrees w ON w.session_id = sessions.id`;

export interface RunRow {
  id: string;
  session_id: string;
  state: RunState;
  input_json: string;
  model: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  continues_run_id: string | null;
  error_json: string | null;
  command_id: string | null;
  created_by: string;
  idle_at: number | null;
  agent: string | null;
  agent_session: string | null;
}

export interface MessageRow {
  id: string;
  run_id: string;
  text: string;
  reasoning: string | null;
  finish_reason: string;
  usage_json: string | null;
  provider: string;
  native_json: string;
  tool_calls_json: string;
  created_at: number;
}

/** An assistant message as the model produced it, with what the provider needs back. */
export interface StoredMessage extends Message {
  /** The provider whose rules apply to `native`. */
  provider: string;
  native: Record<string, unknown>;
  toolCalls: { id: string; name: string; arguments: string }[];
}

/** A run with the host-only facts the protocol record leaves out. */
export interface StoredRun extends Run {
  commandId: string | null;
  createdBy: string;
  idleAt: number | null;
  /** The ACP agent that works the run (docs/agents.md); absent: the host's own loop. */
  agent?: string;
  /** The agent's own session id, once it made or loaded one (host-only). */
  agentSession?: string;
}

const RunInput = z.looseObject({ text: z.string() });
const ModelToolCalls = z.array(
  z.object({ id: z.string(), name: z.string(), arguments: z.string() }),
);

export function toSession(row: SessionRow): Session {
  return {
    id: row.id,
    title: row.title,
    workspace: row.workspace,
    createdAt: row.created_at,
    activeRunId: row.active_run_id,
    ...(row.wt_branch === null || row.wt_base === null || row.wt_state === null
      ? {}
      : {
          worktree: {
            branch: row.wt_branch,
            base: row.wt_base,
            state: row.wt_state,
            head: row.wt_head,
            treeDigest: row.wt_tree,
          },
        }),
  };
}

export function toRun(row: RunRow): StoredRun {
  return {
    id: row.id,
    sessionId: row.session_id,
    state: row.state,
    input: readJsonColumn(RunInput, row.input_json, 'run input'),
    model: row.model,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    continuesRunId: row.continues_run_id,
    error: row.error_json === null ? null : readJsonColumn(RunError, row.error_json, 'run error'),
    commandId: row.command_id,
    createdBy: row.created_by,
    idleAt: row.idle_at,
    ...(row.agent === null ? {} : { agent: row.agent }),
    ...(row.agent_session === null ? {} : { agentSession: row.agent_session }),
  };
}

export function toMessage(row: MessageRow): StoredMessage {
  return {
    id: row.id,
    runId: row.run_id,
    text: row.text,
    reasoning: row.reasoning,
    finishReason: row.finish_reason,
    usage: row.usage_json === null ? null : readJsonColumn(JsonRecord, row.usage_json, 'usage'),
    createdAt: row.created_at,
    provider: row.provider,
    native: readJsonColumn(JsonRecord, row.native_json, 'native fields'),
    toolCalls: readJsonColumn(ModelToolCalls, row.tool_calls_json, 'message tool calls'),
  };
}
