/**
 * Answers to approvals (docs/protocol.md §6.5): every check in the transaction that resolves
 * the approval; the first valid answer wins; expiry resolves as denied by `"expiry"`.
 */
import { TetherError, type Approval, type OpArgs, type OpResult } from '../../protocol/index.js';
import type { Store, StoredToolCall, WriteContext } from '../store/index.js';
import { finishToolCall, moveToolCall, resolveApproval } from './transitions.js';
import type { Actor } from './types.js';

function deny(store: Store, call: StoredToolCall, tx: WriteContext, why: string): void {
  finishToolCall(
    store,
    call,
    tx,
    { status: 'failed', summary: why, error: { code: 'permission_denied', message: why } },
    { modelContent: `permission_denied: ${why}. The tool did not run; go on without it.` },
  );
}

/** What an answer names: the approval, its tool call and the digest of the input shown. */
type AnswerTarget = Pick<OpArgs<'approval.respond'>, 'approvalId' | 'toolCallId' | 'inputDigest'>;

/**
 * The pending approval an answer names and its waiting tool call, or the error that says
 * why it cannot be answered (unknown, expired, already resolved, digest mismatch).
 */
export function pendingApproval(
  store: Store,
  args: AnswerTarget,
): { approval: Approval; call: StoredToolCall } {
  const approval = store.tools.getApproval(args.approvalId);
  if (approval === undefined || approval.toolCallId !== args.toolCallId) {
    throw new TetherError(
      'not_found',
      `no approval ${args.approvalId} for tool call ${args.toolCallId}`,
    );
  }
  if (approval.state === 'expired') {
    throw new TetherError('approval_expired', 'the approval expired before this answer', {
      details: { expiresAt: approval.expiresAt },
    });
  }
  if (approval.state !== 'pending') {
    throw new TetherError(
      'approval_resolved',
      `already ${approval.state} by ${approval.decidedBy ?? 'someone'}`,
      {
        details: { decision: approval.state, by: approval.decidedBy },
      },
    );
  }
  const call = store.tools.getToolCall(approval.toolCallId);
  if (call?.state !== 'waiting_for_approval') {
    throw new TetherError(
      'invalid_state',
      `tool call ${approval.toolCallId} is not waiting for approval`,
      {
        details: { state: call?.state ?? 'missing' },
      },
    );
  }
  if (args.inputDigest !== approval.inputDigest || call.inputDigest !== approval.inputDigest) {
    throw new TetherError(
      'digest_mismatch',
      'the input you approved is not the input the tool would run',
      {
        details: { expected: approval.inputDigest },
      },
    );
  }
  return { approval, call };
}

export function respondToApproval(
  store: Store,
  args: OpArgs<'approval.respond'>,
  by: Actor,
): OpResult<'approval.respond'> {
  return store.applyCommand(
    { commandId: args.commandId, op: 'approval.respond', args, deviceId: by },
    (tx) => {
      const { approval, call } = pendingApproval(store, args);
      const approved = args.decision === 'approve';
      resolveApproval(store, approval, approved ? 'approved' : 'denied', by, tx, args.note);
      if (approved) moveToolCall(store, call, 'ready', tx);
      else
        deny(
          store,
          call,
          tx,
          `the user denied this call${args.note === undefined ? '' : `: ${args.note}`}`,
        );
      return { status: approved ? ('approved' as const) : ('denied' as const) };
    },
  ).result;
}

/** Resolves every pending approval past its expiry as denied by `"expiry"`. Returns how many. */
export function expireApprovals(store: Store, now: number): number {
  const due = store.tools
    .listApprovals({ state: 'pending' })
    .filter((approval) => approval.expiresAt <= now);
  if (due.length === 0) return 0;
  store.write((tx) => {
    for (const approval of due) {
      const call = store.tools.getToolCall(approval.toolCallId);
      resolveApproval(store, approval, 'expired', 'expiry', tx);
      if (call?.state === 'waiting_for_approval')
        deny(store, call, tx, 'nobody answered the approval before it expired');
    }
  });
  return due.length;
}

/** When the next pending approval expires, or null when none is pending. */
export function nextExpiry(store: Store): number | null {
  const pending = store.tools.listApprovals({ state: 'pending' });
  return pending.reduce<number | null>(
    (soonest, a) => (soonest === null || a.expiresAt < soonest ? a.expiresAt : soonest),
    null,
  );
}
