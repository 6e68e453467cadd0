/**
 * How a subscription's snapshot (docs/protocol.md §6.3) replaces what a remote holds for its
 * scope, as of the snapshot's cursor. Records changed after the cursor are kept.
 */
import { z } from 'zod/mini';
import {
  type Approval,
  Approval as ApprovalSchema,
  isActiveRunState,
  parseWith,
  type Run,
  Run as RunSchema,
  RunGetResult,
  Session,
  type SubscribeScope,
  UnscopedSnapshot,
} from '../../protocol/index.js';
import type { StateDraft } from './state-draft.js';

/** A session-scoped snapshot (docs/protocol.md: `{session, runs, pendingApprovals}`). */
const SessionSnapshot = z.looseObject({
  session: Session,
  runs: z.array(RunSchema),
  pendingApprovals: z.array(ApprovalSchema),
});

/** Replaces the scope's records with `snapshot`, validated against the scope's shape. */
export function applySnapshot(
  draft: StateDraft,
  scope: SubscribeScope,
  snapshot: unknown,
  cursor: number,
): void {
  if ('runId' in scope) {
    applyRunSnapshot(draft, parseWith(RunGetResult, snapshot, 'run snapshot'), cursor);
    return;
  }
  if ('sessionId' in scope) {
    const parsed = parseWith(SessionSnapshot, snapshot, 'session snapshot');
    draft.update('sessions', parsed.session.id, cursor, () => parsed.session);
    const inSession = (runId: string) => draft.get('runs', runId)?.sessionId === scope.sessionId;
    replaceActiveRuns(draft, parsed.runs, cursor, (run) => run.sessionId === scope.sessionId);
    replacePending(draft, parsed.pendingApprovals, cursor, (approval) => inSession(approval.runId));
    return;
  }
  const parsed = parseWith(UnscopedSnapshot, snapshot, 'snapshot');
  for (const session of parsed.sessions)
    draft.update('sessions', session.id, cursor, () => session);
  replaceActiveRuns(draft, parsed.runs, cursor, () => true);
  replacePending(draft, parsed.pendingApprovals, cursor, () => true);
  const listed = new Set(parsed.devices.map((device) => device.deviceId));
  for (const device of draft.all('devices')) {
    if (!listed.has(device.deviceId)) draft.remove('devices', device.deviceId, cursor);
  }
  for (const device of parsed.devices)
    draft.update('devices', device.deviceId, cursor, () => device);
}

function applyRunSnapshot(
  draft: StateDraft,
  snapshot: z.infer<typeof RunGetResult>,
  cursor: number,
): void {
  const { run, live } = snapshot;
  draft.update('runs', run.id, cursor, () => run);
  const calls = new Set(snapshot.toolCalls.map((call) => call.id));
  for (const call of draft.all('toolCalls')) {
    if (call.runId === run.id && !calls.has(call.id)) draft.remove('toolCalls', call.id, cursor);
  }
  for (const call of snapshot.toolCalls) draft.update('toolCalls', call.id, cursor, () => call);
  const approvals = new Set(snapshot.approvals.map((approval) => approval.id));
  for (const approval of draft.all('approvals')) {
    if (approval.runId === run.id && !approvals.has(approval.id)) {
      draft.remove('approvals', approval.id, cursor);
    }
  }
  for (const approval of snapshot.approvals) {
    draft.update('approvals', approval.id, cursor, () => approval);
  }
  draft.put('messages', run.id, mergeById(draft.get('messages', run.id), snapshot.messages));
  draft.put('artifacts', run.id, mergeById(draft.get('artifacts', run.id), snapshot.artifacts));
  const preview =
    live?.messageId == null
      ? undefined
      : { messageId: live.messageId, text: live.text, reasoning: live.reasoning };
  draft.put('previews', run.id, preview);
  for (const { toolCallId, offset, text } of live?.outputs ?? []) {
    draft.put('outputs', toolCallId, { offset, text });
  }
}

/**
 * Upserts `runs`. A run held as active, in `inScope`, and absent from the snapshot has
 * ended in a way this remote did not see (the snapshot lists every active run): dropped,
 * rather than shown active forever.
 */
function replaceActiveRuns(
  draft: StateDraft,
  runs: readonly Run[],
  cursor: number,
  inScope: (run: Run) => boolean,
): void {
  const listed = new Set(runs.map((run) => run.id));
  for (const run of draft.all('runs')) {
    if (isActiveRunState(run.state) && inScope(run) && !listed.has(run.id)) {
      draft.remove('runs', run.id, cursor);
    }
  }
  for (const run of runs) draft.update('runs', run.id, cursor, () => run);
}

/** Upserts pending approvals; a pending one in scope and not listed is no longer pending. */
function replacePending(
  draft: StateDraft,
  pending: readonly Approval[],
  cursor: number,
  inScope: (approval: Approval) => boolean,
): void {
  const listed = new Set(pending.map((approval) => approval.id));
  for (const approval of draft.all('approvals')) {
    if (approval.state === 'pending' && inScope(approval) && !listed.has(approval.id)) {
      draft.remove('approvals', approval.id, cursor);
    }
  }
  for (const approval of pending) draft.update('approvals', approval.id, cursor, () => approval);
}

/** `current` with the records of `incoming` it lacks, by id, in creation order. */
function mergeById<T extends { id: string; createdAt: number }>(
  current: readonly T[] | undefined,
  incoming: readonly T[],
): readonly T[] {
  const known = new Set((current ?? []).map((item) => item.id));
  const added = incoming.filter((item) => !known.has(item.id));
  if (added.length === 0 && current !== undefined) return current;
  return [...(current ?? []), ...added].sort((a, b) => a.createdAt - b.createdAt);
}
