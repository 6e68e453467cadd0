/**
 * How each durable event (docs/protocol.md §6.4) changes the records a remote holds. Only what
 * the event says is applied; a record the remote never saw is not made up from a partial event.
 */
import {
  type Approval,
  type Event,
  isActiveRunState,
  isTerminalRunState,
  type Run,
  type ToolCall,
  type ToolCallState,
} from '../../protocol/index.js';
import { worktreeAfter } from './session-worktree.js';
import type { StateDraft } from './state-draft.js';

type EventOf<T extends Event['type']> = Extract<Event, { type: T }>;

/** Applies one event's changes to the records (the timeline is kept by the store). */
export function applyEvent(draft: StateDraft, event: Event): void {
  const { seq, at, sessionId, runId } = event;
  switch (event.type) {
    case 'session.created': {
      if (sessionId === null) return;
      const { title, workspace } = event.payload;
      draft.update('sessions', sessionId, seq, (session) => {
        return session ?? { id: sessionId, title, workspace, createdAt: at, activeRunId: null };
      });
      return;
    }
    case 'run.queued':
      queueRun(draft, event);
      return;
    case 'run.started':
      updateRun(draft, event, (run) => ({
        ...run,
        state: 'running',
        startedAt: run.startedAt ?? at,
      }));
      if (sessionId !== null && runId !== null) {
        draft.update('sessions', sessionId, seq, (session) =>
          session === undefined ? undefined : { ...session, activeRunId: runId },
        );
      }
      return;
    case 'message.completed':
      completeMessage(draft, event);
      return;
    case 'tool.proposed': {
      const callId = event.toolCallId;
      if (callId === null || runId === null) return;
      const { name, input, inputDigest, access } = event.payload;
      const proposed: ToolCall = {
        id: callId,
        runId,
        name,
        input,
        inputDigest,
        ...(access === undefined ? {} : { access }),
        state: 'proposed',
        startedAt: null,
        finishedAt: null,
        result: null,
      };
      draft.update('toolCalls', callId, seq, (call) => call ?? proposed);
      return;
    }
    case 'tool.approval_requested':
      requestApproval(draft, event);
      return;
    case 'tool.approval_resolved':
      resolveApproval(draft, event);
      return;
    case 'tool.started': {
      const { allowedBy } = event.payload;
      updateToolCall(draft, event, (call) => ({
        ...call,
        state: 'running',
        startedAt: at,
        ...(allowedBy === undefined ? {} : { allowedBy }),
      }));
      return;
    }
    case 'tool.finished':
      updateToolCall(draft, event, (call) => ({
        ...call,
        state: event.payload.status,
        finishedAt: at,
        result: { ...event.payload },
      }));
      if (event.toolCallId !== null) draft.put('outputs', event.toolCallId, undefined);
      return;
    case 'tool.reconciled': {
      const reconciled = { ...event.payload };
      updateToolCall(draft, event, (call) => ({ ...call, result: { ...call.result, reconciled } }));
      return;
    }
    case 'artifact.created': {
      if (runId === null) return;
      const { artifactId, kind, name, bytes, sha256 } = event.payload;
      const list = draft.get('artifacts', runId) ?? [];
      if (list.some((artifact) => artifact.id === artifactId)) return;
      const artifact = { id: artifactId, runId, toolCallId: event.toolCallId, kind, name, bytes };
      draft.put('artifacts', runId, [...list, { ...artifact, sha256, createdAt: at }]);
      return;
    }
    case 'run.cancel_requested':
      updateRun(draft, event, (run) =>
        isActiveRunState(run.state) ? { ...run, state: 'cancelling' } : undefined,
      );
      return;
    case 'run.finished': {
      const { state, error } = event.payload;
      updateRun(draft, event, (run) => ({ ...run, state, finishedAt: at, error: error ?? null }));
      if (runId !== null) draft.put('previews', runId, undefined);
      return;
    }
    case 'session.idle':
      if (sessionId === null) return;
      draft.update('sessions', sessionId, seq, (session) =>
        session === undefined || session.activeRunId !== runId
          ? undefined
          : { ...session, activeRunId: null },
      );
      return;
    case 'device.paired':
    case 'device.revoked': {
      const { deviceId, name } = event.payload;
      const revoked = event.type === 'device.revoked';
      const { platform } = event.payload;
      draft.update('devices', deviceId, seq, (device) => {
        if (device !== undefined) return { ...device, name, revoked: device.revoked || revoked };
        // A device record needs its platform, which the event does not carry (yet).
        if (typeof platform !== 'string') return undefined;
        return {
          deviceId,
          name,
          platform,
          pairedAt: at,
          lastSeenAt: null,
          revoked,
          current: false,
        };
      });
      return;
    }
    case 'device.renamed': {
      const { deviceId, name } = event.payload;
      draft.update('devices', deviceId, seq, (device) =>
        device === undefined ? undefined : { ...device, name },
      );
      return;
    }
    case 'model.request':
    case 'model.retry':
    case 'host.started':
    case 'host.stopping':
    case 'policy.rule_added':
    case 'policy.rule_removed':
    case 'session.compacted':
      // No record here holds rules (the Rules screen asks policy.rules) or summaries.
      return;
    case 'run.result':
    case 'run.integrated':
      // The session's worktree moves on; the review itself is asked with run.review.
      if (sessionId === null) return;
      draft.update('sessions', sessionId, seq, (session) =>
        session === undefined ? undefined : worktreeAfter(session, event.type, event.payload),
      );
      return;
  }
}

function queueRun(draft: StateDraft, event: EventOf<'run.queued'>): void {
  const { seq, at, sessionId, runId, payload } = event;
  if (runId === null || sessionId === null) return;
  const queued: Run = {
    id: runId,
    sessionId,
    state: 'queued',
    input: payload.input,
    model: payload.model,
    createdAt: at,
    startedAt: null,
    finishedAt: null,
    continuesRunId: payload.continuesRunId ?? null,
    error: null,
  };
  draft.update('runs', runId, seq, (run) => run ?? queued);
}

function completeMessage(draft: StateDraft, event: EventOf<'message.completed'>): void {
  const { at, runId, payload } = event;
  if (runId === null) return;
  const list = draft.get('messages', runId) ?? [];
  if (!list.some((message) => message.id === payload.messageId)) {
    const message = {
      id: payload.messageId,
      runId,
      text: payload.text,
      reasoning: payload.reasoning ?? null,
      finishReason: payload.finishReason,
      usage: payload.usage ?? null,
      createdAt: at,
    };
    draft.put('messages', runId, [...list, message]);
  }
  if (draft.get('previews', runId)?.messageId === payload.messageId) {
    draft.put('previews', runId, undefined);
  }
}

function requestApproval(draft: StateDraft, event: EventOf<'tool.approval_requested'>): void {
  const { seq, runId, toolCallId, payload } = event;
  if (runId === null || toolCallId === null) return;
  const { approvalId, name, input, workspace, inputDigest, preview, reason, expiresAt } = payload;
  const pending: Approval = {
    id: approvalId,
    toolCallId,
    runId,
    state: 'pending',
    name,
    input,
    workspace,
    inputDigest,
    preview,
    reason,
    expiresAt,
    decidedBy: null,
  };
  draft.update('approvals', approvalId, seq, (approval) => approval ?? pending);
  updateToolCall(draft, event, (call) => ({ ...call, state: 'waiting_for_approval' }));
  updateRun(draft, event, (run) =>
    run.state === 'running' ? { ...run, state: 'waiting_for_approval' } : undefined,
  );
}

const CALL_AFTER_DECISION: Record<Approval['state'], ToolCallState | undefined> = {
  pending: undefined,
  approved: 'ready',
  denied: 'failed',
  expired: 'failed',
  cancelled: 'cancelled',
};

function resolveApproval(draft: StateDraft, event: EventOf<'tool.approval_resolved'>): void {
  const { seq, at, runId, payload } = event;
  const { approvalId, decision, by } = payload;
  draft.update('approvals', approvalId, seq, (approval) =>
    approval === undefined
      ? undefined
      : { ...approval, state: decision, decidedBy: by, decidedAt: at },
  );
  const callState = CALL_AFTER_DECISION[decision];
  updateToolCall(draft, event, (call) =>
    callState === undefined || call.state !== 'waiting_for_approval'
      ? undefined
      : { ...call, state: callState },
  );
  const stillWaiting = draft
    .all('approvals')
    .some((approval) => approval.runId === runId && approval.state === 'pending');
  updateRun(draft, event, (run) =>
    run.state === 'waiting_for_approval' && !stillWaiting
      ? { ...run, state: 'running' }
      : undefined,
  );
}

function updateRun(draft: StateDraft, event: Event, change: (run: Run) => Run | undefined): void {
  if (event.runId === null) return;
  draft.update('runs', event.runId, event.seq, (run) => {
    // Terminal states are never rewritten (docs/protocol.md §7).
    if (run === undefined || isTerminalRunState(run.state)) return undefined;
    return change(run);
  });
}

function updateToolCall(
  draft: StateDraft,
  event: Event,
  change: (call: ToolCall) => ToolCall | undefined,
): void {
  if (event.toolCallId === null) return;
  draft.update('toolCalls', event.toolCallId, event.seq, (call) =>
    call === undefined ? undefined : change(call),
  );
}
