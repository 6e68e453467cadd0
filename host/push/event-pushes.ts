/**
 * Which committed events push what (docs/push.md): one rule per event type, each making the
 * pushes its event calls for, or cancelling those it makes moot. The dispatcher
 * (push-dispatcher.ts) reads committed events, runs their rule inside its transaction, and
 * sends what was enqueued; a new push kind is a new rule here.
 */
import type { Event, PushKind } from '../../protocol/index.js';
import type { PushSettings } from '../config/index.js';
import type { NewPushDelivery, Store, StoredPushSubscription } from '../store/index.js';
import { approvalPayload, reviewPayload, runEndPayload } from './push-payload.js';
import type { PushHost } from './types.js';

/** How long a run's end, or a branch ready to review, is worth showing to a device that was offline. */
const RUN_END_TTL_MS = 24 * 60 * 60 * 1000;

/** What a rule reads and writes: the store, inside the dispatcher's transaction. */
export interface PushRuleContext {
  store: Store;
  host: PushHost;
  body: PushSettings['body'];
  /** The commit time of the transaction the pushes are made in. */
  at: number;
}

type PushEventType =
  | 'tool.approval_requested'
  | 'tool.approval_resolved'
  | 'run.finished'
  | 'run.result'
  | 'run.integrated';

type PushRule<T extends PushEventType> = (
  event: Extract<Event, { type: T }>,
  ctx: PushRuleContext,
) => number;

/** A push for each subscription that `wants` it. Returns how many were made. */
function enqueueFor(
  ctx: PushRuleContext,
  wants: (subscription: StoredPushSubscription) => boolean,
  delivery: Omit<NewPushDelivery, 'deviceId'>,
): number {
  let made = 0;
  for (const subscription of ctx.store.push.subscriptions()) {
    if (!wants(subscription)) continue;
    ctx.store.push.enqueue({ ...delivery, deviceId: subscription.deviceId }, ctx.at);
    made += 1;
  }
  return made;
}

/** A push id's topic: what a push service lets a newer push replace. */
function topicOf(id: string, prefix = ''): string {
  return `${prefix}${id.replace(/[^A-Za-z0-9_-]/g, '')}`.slice(0, 32);
}

/** The rule of each event type that makes or cancels pushes; other events push nothing. */
const RULES: { [T in PushEventType]: PushRule<T> } = {
  'tool.approval_requested': (event, ctx) => {
    const approval = ctx.store.tools.getApproval(event.payload.approvalId);
    if (approval?.state !== 'pending' || event.runId === null) return 0;
    const payload = approvalPayload(
      ctx.host,
      ctx.body,
      {
        runId: event.runId,
        approvalId: approval.id,
        name: event.payload.name,
        workspace: event.payload.workspace,
        preview: event.payload.preview,
      },
      event.at,
    );
    return enqueueFor(ctx, (subscription) => subscription.kinds.includes('approval'), {
      kind: 'approval',
      runId: event.runId,
      approvalId: approval.id,
      eventSeq: event.seq,
      payloadJson: JSON.stringify(payload),
      urgency: 'high',
      topic: topicOf(approval.id),
      expiresAt: approval.expiresAt,
    });
  },
  'tool.approval_resolved': (event, ctx) => {
    ctx.store.push.cancelForApproval(
      event.payload.approvalId,
      ctx.at,
      'the approval was answered before its push went out',
    );
    return 0;
  },
  'run.finished': (event, ctx) => {
    if (event.runId === null) return 0;
    const run = ctx.store.runs.getRun(event.runId);
    if (run === undefined) return 0;
    const state = event.payload.state;
    const kind: PushKind =
      state === 'failed' ? 'run_failed' : state === 'interrupted' ? 'run_interrupted' : 'run_ended';
    const payload = runEndPayload(
      ctx.host,
      ctx.body,
      kind,
      {
        runId: run.id,
        state,
        workspace: ctx.store.runs.getSession(run.sessionId)?.workspace ?? null,
        error: event.payload.error ?? null,
      },
      event.at,
    );
    return enqueueFor(
      ctx,
      (subscription) =>
        subscription.kinds.includes(kind) ||
        (subscription.kinds.includes('run_ended') && run.createdBy === subscription.deviceId),
      {
        kind,
        runId: run.id,
        approvalId: null,
        eventSeq: event.seq,
        payloadJson: JSON.stringify(payload),
        urgency: 'normal',
        topic: topicOf(run.id),
        expiresAt: event.at + RUN_END_TTL_MS,
      },
    );
  },
  /**
   * "Ready to review" for a worktree run's result that committed changes, to each device
   * that asked for `review` (or for `approval`: subscriptions made before `review`
   * existed); a result that committed nothing new is not pushed. Skipped once the branch
   * was answered (the host read the events after the answer).
   */
  'run.result': (event, ctx) => {
    const { runId, sessionId, payload } = event;
    if (runId === null || sessionId === null || payload['committed'] !== true) return 0;
    if (ctx.store.worktrees.get(sessionId)?.state !== 'active') return 0;
    const run = ctx.store.runs.getRun(runId);
    const stat = payload['stat'] as { files?: unknown } | undefined;
    const push = reviewPayload(
      ctx.host,
      ctx.body,
      {
        runId,
        sessionId,
        branch: String(payload['branch']),
        files: typeof stat?.files === 'number' ? stat.files : 0,
        workspace: ctx.store.runs.getSession(sessionId)?.workspace ?? null,
        task: run?.input.text ?? '',
      },
      event.at,
    );
    return enqueueFor(
      ctx,
      (subscription) =>
        subscription.kinds.includes('review') || subscription.kinds.includes('approval'),
      {
        kind: 'review',
        runId,
        approvalId: null,
        eventSeq: event.seq,
        payloadJson: JSON.stringify(push),
        urgency: 'normal',
        topic: topicOf(sessionId, 'review'),
        expiresAt: event.at + RUN_END_TTL_MS,
      },
    );
  },
  'run.integrated': (event, ctx) => {
    if (event.sessionId !== null) {
      ctx.store.push.cancelReviews(
        event.sessionId,
        ctx.at,
        'the branch was answered before its push went out',
      );
    }
    return 0;
  },
};

/** Whether events of `type` make or cancel pushes (the dispatcher wakes for these only). */
export function isPushEvent(type: string): type is PushEventType {
  return Object.hasOwn(RULES, type);
}

/** Enqueues (or cancels) the pushes one committed event calls for. Returns how many were made. */
export function pushesOf(event: Event, ctx: PushRuleContext): number {
  if (!isPushEvent(event.type)) return 0;
  const rule = RULES[event.type] as PushRule<PushEventType>;
  return rule(event as Extract<Event, { type: PushEventType }>, ctx);
}
