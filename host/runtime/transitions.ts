/**
 * Guarded state changes. Each writes the new state and its event in the caller's
 * transaction; an illegal step is a broken invariant and throws.
 */
import {
  canTransition,
  type Approval,
  type ApprovalState,
  type EventPayload,
  type RunError,
  type RunFailure,
  type RunState,
  type ToolCallState,
} from '../../protocol/index.js';
import type { Store, StoredRun, StoredToolCall, WriteContext } from '../store/index.js';

class IllegalTransition extends Error {
  override readonly name = 'IllegalTransition';
}

/** Moves a run to `to`, stamping startedAt/finishedAt. Returns the updated run. */
export function moveRun(
  store: Store,
  run: StoredRun,
  to: RunState,
  tx: WriteContext,
  error: RunError | null = run.error,
): StoredRun {
  const current = store.runs.getRun(run.id);
  if (current === undefined || !canTransition('run', current.state, to)) {
    throw new IllegalTransition(`run ${run.id}: ${current?.state ?? 'missing'} → ${to}`);
  }
  const change = {
    state: to,
    error,
    startedAt: to === 'running' && current.startedAt === null ? tx.at : current.startedAt,
    finishedAt: isFinal(to) ? tx.at : current.finishedAt,
  };
  store.runs.updateRun(run.id, change);
  return { ...current, ...change };
}

function isFinal(state: RunState): boolean {
  return (
    state === 'succeeded' || state === 'failed' || state === 'cancelled' || state === 'interrupted'
  );
}

/** Moves a tool call to `to` with the fields that go with it. */
export function moveToolCall(
  store: Store,
  call: StoredToolCall,
  to: ToolCallState,
  tx: WriteContext,
  change: Partial<
    Pick<StoredToolCall, 'result' | 'modelContent' | 'output' | 'attempt' | 'processGroup'>
  > = {},
): StoredToolCall {
  const current = store.tools.getToolCall(call.id);
  if (current === undefined || !canTransition('toolCall', current.state, to)) {
    throw new IllegalTransition(`tool call ${call.id}: ${current?.state ?? 'missing'} → ${to}`);
  }
  const next = {
    ...change,
    state: to,
    startedAt: to === 'running' ? tx.at : current.startedAt,
    finishedAt:
      to === 'succeeded' || to === 'failed' || to === 'cancelled' || to === 'unknown'
        ? tx.at
        : current.finishedAt,
  };
  store.tools.updateToolCall(call.id, next);
  return { ...current, ...next };
}

/** Ends a tool call with `tool.finished`, storing what the model will be told. */
export function finishToolCall(
  store: Store,
  call: StoredToolCall,
  tx: WriteContext,
  outcome: EventPayload<'tool.finished'>,
  change: Partial<Pick<StoredToolCall, 'modelContent' | 'output' | 'result'>> = {},
): StoredToolCall {
  const status = outcome.status;
  const updated = moveToolCall(store, call, status, tx, {
    result: change.result ?? { ...outcome },
    ...change,
  });
  tx.append({
    type: 'tool.finished',
    sessionId: sessionOf(store, call.runId),
    runId: call.runId,
    toolCallId: call.id,
    payload: outcome,
  });
  return updated;
}

/** Ends a run with `run.finished`. `session.idle` follows separately, once resources are released. */
export function finishRun(
  store: Store,
  run: StoredRun,
  state: 'succeeded' | 'failed' | 'cancelled' | 'interrupted',
  tx: WriteContext,
  detail: { reason?: string; error?: RunFailure } = {},
): StoredRun {
  const updated = moveRun(store, run, state, tx, detail.error ?? null);
  tx.append({
    type: 'run.finished',
    sessionId: run.sessionId,
    runId: run.id,
    payload: {
      state,
      ...(detail.reason === undefined ? {} : { reason: detail.reason }),
      ...(detail.error === undefined ? {} : { error: detail.error }),
    },
  });
  return updated;
}

/** Records `session.idle` for a finished run and frees its session. */
export function markSessionIdle(store: Store, run: StoredRun, tx: WriteContext): void {
  store.runs.updateRun(run.id, { idleAt: tx.at });
  const session = store.runs.getSession(run.sessionId);
  if (session?.activeRunId === run.id) store.runs.setActiveRun(run.sessionId, null);
  tx.append({ type: 'session.idle', sessionId: run.sessionId, runId: run.id, payload: {} });
}

export function sessionOf(store: Store, runId: string): string | null {
  return store.runs.getRun(runId)?.sessionId ?? null;
}

/**
 * Resolves a pending approval with `tool.approval_resolved`. `by` is a device id, or
 * `expiry`, `cancel` or `policy`. An expired approval is recorded `expired` and announced
 * as `{decision: "denied", by: "expiry"}` (docs/protocol.md §6.5).
 */
export function resolveApproval(
  store: Store,
  approval: Approval,
  to: Exclude<ApprovalState, 'pending'>,
  by: string,
  tx: WriteContext,
  reason?: string,
): void {
  const current = store.tools.getApproval(approval.id);
  if (current === undefined || !canTransition('approval', current.state, to)) {
    throw new IllegalTransition(`approval ${approval.id}: ${current?.state ?? 'missing'} → ${to}`);
  }
  store.tools.resolveApproval(approval.id, to, by, tx.at);
  tx.append({
    type: 'tool.approval_resolved',
    sessionId: sessionOf(store, current.runId),
    runId: current.runId,
    toolCallId: current.toolCallId,
    payload: {
      approvalId: approval.id,
      decision: to === 'expired' ? 'denied' : to,
      by,
      ...(reason === undefined ? {} : { reason }),
    },
  });
}

/** Resolves a run's pending approvals as cancelled (`by: "cancel"`). */
export function cancelPendingApprovals(store: Store, run: StoredRun, tx: WriteContext): void {
  for (const approval of store.tools.listApprovals({ runId: run.id, state: 'pending' })) {
    resolveApproval(store, approval, 'cancelled', 'cancel', tx);
  }
}
