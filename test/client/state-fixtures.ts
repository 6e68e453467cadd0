/**
 * Records and events for state-store tests, valid against the protocol schemas.
 */
import type { Approval, Event, EventPayload, Run, Session } from '../../protocol/index.js';
import type { EventType } from '../../protocol/testing.js';

export const DIGEST = 'sha256:' + 'a'.repeat(64);

export function session(id = 'ses_1', activeRunId: string | null = null): Session {
  return { id, title: 'List files', workspace: '/w', createdAt: 1, activeRunId };
}

export function run(id = 'run_1', state: Run['state'] = 'queued', sessionId = 'ses_1'): Run {
  return {
    id,
    sessionId,
    state,
    input: { text: 'List files' },
    model: null,
    createdAt: 1,
    startedAt: null,
    finishedAt: null,
    continuesRunId: null,
    error: null,
  };
}

export function approval(id = 'apr_1', runId = 'run_1', toolCallId = 'tc_1'): Approval {
  return {
    id,
    toolCallId,
    runId,
    state: 'pending',
    name: 'run_command',
    input: { command: 'npm test' },
    workspace: '/w',
    inputDigest: DIGEST,
    preview: { kind: 'command', command: 'npm test', cwd: '/w' },
    reason: 'commands ask',
    expiresAt: 99,
    decidedBy: null,
  };
}

/** An event of run_1 in ses_1 (override with `ids`). */
export function event<T extends EventType>(
  seq: number,
  type: T,
  payload: EventPayload<T>,
  ids: { sessionId?: string | null; runId?: string | null; toolCallId?: string | null } = {},
): Event {
  return {
    v: 1,
    seq,
    id: `evt_${seq}`,
    type,
    at: 1000 + seq,
    sessionId: ids.sessionId === undefined ? 'ses_1' : ids.sessionId,
    runId: ids.runId === undefined ? 'run_1' : ids.runId,
    toolCallId: ids.toolCallId ?? null,
    payload,
  } as Event;
}

export function unscopedSnapshot(parts: {
  sessions?: Session[];
  runs?: Run[];
  pendingApprovals?: Approval[];
}) {
  return { sessions: [], runs: [], pendingApprovals: [], devices: [], ...parts };
}
