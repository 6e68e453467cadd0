/**
 * Durable events (docs/protocol.md §6.4): the envelope and one payload schema per type.
 */
import { z } from 'zod/mini';
import { Digest, JsonObject, Millis, OpaqueId, PeerId, Seq } from './primitives.js';
import { AllowedBy, ApprovalPreview, ToolAccessKind } from './records.js';

const ToolFinishedStatus = z.enum(['succeeded', 'failed', 'cancelled', 'unknown']);
const RunFinishedState = z.enum(['succeeded', 'failed', 'cancelled', 'interrupted']);
const HostLifecycle = z.looseObject({
  instance: z.string(),
  interruptedRuns: z.optional(z.array(OpaqueId)),
});
const DeviceChange = z.looseObject({ deviceId: PeerId, name: z.string() });

/** Payload schema for every event type. */
const EVENT_PAYLOADS = {
  'session.created': z.looseObject({
    title: z.string(),
    workspace: z.string(),
    // `worktree: {branch, base}` when the session works in its own (protocol/worktree.ts).
  }),
  'run.queued': z.looseObject({
    input: z.looseObject({ text: z.string() }),
    model: z.nullable(z.string()),
    commandId: z.string(),
    by: z.string(),
    continuesRunId: z.optional(OpaqueId),
    // `attachments`: what `input.attachments` named, absent with none: `Attachment`s of
    // protocol/attachments.ts, parsed where shown (docs/attachments.md).
  }),
  'run.started': z.looseObject({}),
  'model.request': z.looseObject({ index: z.int().check(z.nonnegative()), model: z.string() }),
  'model.retry': z.looseObject({
    attempt: z.int().check(z.positive()),
    maxAttempts: z.int().check(z.positive()),
    delayMs: z.int().check(z.nonnegative()),
    reason: z.string(),
    status: z.optional(z.int()),
  }),
  'message.completed': z.looseObject({
    messageId: OpaqueId,
    text: z.string(),
    reasoning: z.optional(z.string()),
    finishReason: z.string(),
    usage: z.optional(JsonObject),
  }),
  'tool.proposed': z.looseObject({
    name: z.string(),
    input: z.unknown(),
    inputDigest: Digest,
    access: z.optional(ToolAccessKind),
  }),
  'tool.approval_requested': z.looseObject({
    approvalId: OpaqueId,
    name: z.string(),
    input: z.unknown(),
    workspace: z.string(),
    inputDigest: Digest,
    reason: z.string(),
    preview: ApprovalPreview,
    expiresAt: Millis,
  }),
  'tool.approval_resolved': z.looseObject({
    approvalId: OpaqueId,
    decision: z.enum(['approved', 'denied', 'expired', 'cancelled']),
    by: z.string(),
    reason: z.optional(z.string()),
  }),
  'tool.started': z.looseObject({
    attempt: z.int().check(z.positive()),
    allowedBy: z.optional(AllowedBy),
  }),
  'tool.finished': z.looseObject({
    status: ToolFinishedStatus,
    summary: z.string(),
    exitCode: z.optional(z.nullable(z.int())),
    signal: z.optional(z.nullable(z.string())),
    bytes: z.optional(z.int().check(z.nonnegative())),
    truncated: z.optional(z.boolean()),
    error: z.optional(z.looseObject({ code: z.string(), message: z.string() })),
  }),
  'tool.reconciled': z.looseObject({
    outcome: z.enum(['happened', 'did_not_happen', 'unknown']),
    by: z.string(),
    note: z.optional(z.string()),
  }),
  'artifact.created': z.looseObject({
    artifactId: OpaqueId,
    kind: z.string(),
    name: z.string(),
    bytes: z.int().check(z.nonnegative()),
    sha256: z.string(),
  }),
  'run.cancel_requested': z.looseObject({ by: z.string() }),
  'run.finished': z.looseObject({
    state: RunFinishedState,
    reason: z.optional(z.string()),
    error: z.optional(z.looseObject({ code: z.string(), message: z.string() })),
  }),
  'session.idle': z.looseObject({}),
  /**
   * `RunResult` and `RunIntegrated` of protocol/worktree.ts (docs/worktrees.md): readers
   * parse them where they show them, as the app's review screen does (its own chunk):
   * named here they would cost the app's first load.
   */
  'run.result': z.looseObject({}),
  'run.integrated': z.looseObject({}),
  /**
   * The envelope's runId is the run whose model request needed the summary. Carries
   * `{summaryId, coversSeq: [from, to], tokensBefore, tokensAfter, summary, model, usage?}`
   * (docs/protocol.md §6.4, host/runtime/session-compaction.ts); readers parse what they
   * show (remote/cli/event-lines.ts): naming it here would cost the app's first load.
   */
  'session.compacted': z.looseObject({}),
  'device.paired': DeviceChange,
  'device.revoked': DeviceChange,
  /** `by`: the deviceId that renamed it, or `"admin"` (the host's own command line). */
  'device.renamed': z.looseObject({
    deviceId: PeerId,
    name: z.string(),
    previousName: z.string(),
    by: z.string(),
  }),
  'policy.rule_added': z.looseObject({
    ruleId: OpaqueId,
    rule: z.array(z.string()),
    workspace: z.string(),
    by: z.string(),
    byName: z.string(),
    approvalId: OpaqueId,
  }),
  'policy.rule_removed': z.looseObject({
    ruleId: OpaqueId,
    rule: z.array(z.string()),
    workspace: z.string(),
    by: z.string(),
  }),
  'host.started': HostLifecycle,
  'host.stopping': HostLifecycle,
} as const;

export type EventType = keyof typeof EVENT_PAYLOADS;
export const EVENT_TYPES = Object.keys(EVENT_PAYLOADS) as [EventType, ...EventType[]];
export type EventPayload<T extends EventType> = z.infer<(typeof EVENT_PAYLOADS)[T]>;

const envelope = {
  v: z.literal(1),
  seq: Seq,
  id: OpaqueId,
  at: Millis,
  sessionId: z.nullable(OpaqueId),
  runId: z.nullable(OpaqueId),
  toolCallId: z.nullable(OpaqueId),
};

function eventSchema<T extends EventType>(type: T) {
  return z.looseObject({ ...envelope, type: z.literal(type), payload: EVENT_PAYLOADS[type] });
}

/** A durable event as sent in `events` frames, discriminated on `type`. */
export const Event = z.discriminatedUnion(
  'type',
  EVENT_TYPES.map((type) => eventSchema(type)) as unknown as [
    ReturnType<typeof eventSchema<EventType>>,
    ...ReturnType<typeof eventSchema<EventType>>[],
  ],
);

/** A durable event whose payload matches its type. */
export type Event = {
  [T in EventType]: {
    v: 1;
    seq: number;
    id: string;
    type: T;
    at: number;
    sessionId: string | null;
    runId: string | null;
    toolCallId: string | null;
    payload: EventPayload<T>;
  };
}[EventType];

/** An event before the store gives it seq, id and time. */
export type NewEvent = {
  [T in EventType]: {
    type: T;
    sessionId?: string | null;
    runId?: string | null;
    toolCallId?: string | null;
    payload: EventPayload<T>;
  };
}[EventType];
