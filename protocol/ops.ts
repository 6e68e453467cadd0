/**
 * Operations a remote may request (docs/protocol.md §6.2): args and result schemas.
 * Args are strict (an unknown field is a clear `invalid_request`); results are loose so a
 * newer host may add fields.
 */
import { z } from 'zod/mini';
import {
  AllowRule,
  Approval,
  Artifact,
  Device,
  LiveState,
  McpServerInfo,
  Message,
  Run,
  RunInput,
  Session,
  ToolCall,
  Workspace,
} from './records.js';
import { CommandId, DeviceName, Digest, Millis, OpaqueId, PeerId, Seq } from './primitives.js';
import { PushSubscription, SubscribablePushKind } from './push.js';
import { GitObjectId, IntegrateAction, Isolation } from './worktree-args.js';
import { TokenUsage } from './usage.js';
import { RunState } from './states.js';
import { AttachmentId, AttachmentPutArgs, ChunkIndex } from './attachments.js';

/** Largest page of output or artifact text one read returns (bytes). */
export const MAX_READ_BYTES = 262_144;

const Empty = z.strictObject({});
const EmptyResult = z.looseObject({});
const PageLimit = z.int().check(z.minimum(1), z.maximum(200));
const Note = z.string().check(z.maxLength(2000));
/** What `runs.list` looks for: text, matched case-insensitively and literally (no wildcards). */
const RunQuery = z
  .string()
  .check(
    z.trim(),
    z.minLength(1, { error: 'expected some text to look for' }),
    z.maxLength(200, { error: 'expected at most 200 characters' }),
  );

const PageRange = {
  offset: z.int().check(z.nonnegative()),
  limit: z.int().check(z.minimum(1), z.maximum(MAX_READ_BYTES)),
};

const ReadResult = z.looseObject({
  text: z.string(),
  offset: z.int().check(z.nonnegative()),
  nextOffset: z.int().check(z.nonnegative()),
  eof: z.boolean(),
  totalBytes: z.int().check(z.nonnegative()),
  truncated: z.boolean(),
});

export const RunGetResult = z.looseObject({
  run: Run,
  messages: z.array(Message),
  toolCalls: z.array(ToolCall),
  approvals: z.array(Approval),
  artifacts: z.array(Artifact),
  // `attachments`: what the run was given (`input.attachments`), in that order, absent with
  // none: `Attachment`s of protocol/attachments.ts, parsed where shown (not at first load).
  live: z.optional(LiveState),
  cursor: Seq,
});
export type RunGetResult = z.infer<typeof RunGetResult>;

export const SubscribeScope = z.union([
  z.strictObject({ sessionId: OpaqueId }),
  z.strictObject({ runId: OpaqueId }),
  z.strictObject({}),
]);
export type SubscribeScope = z.infer<typeof SubscribeScope>;

/**
 * `host.info.history.rewound`: the database's history ends at `head`, before `knownHead`
 * that the host's mark (`by: "host"`) or a device's cursor (`by: "device"`) had seen.
 */
const HistoryRewound = z.looseObject({
  detectedAt: z.number(),
  head: Seq,
  knownHead: Seq,
  by: z.enum(['host', 'device']),
  deviceId: z.optional(z.string()),
  count: z.int().check(z.positive()),
});

export const UnscopedSnapshot = z.looseObject({
  sessions: z.array(Session),
  runs: z.array(Run),
  pendingApprovals: z.array(Approval),
  devices: z.array(Device),
});
export type UnscopedSnapshot = z.infer<typeof UnscopedSnapshot>;

/** Every op: its args, its result, and whether it changes state (carries `commandId`). */
export const OPS = {
  'host.info': {
    command: false,
    args: Empty,
    result: z.looseObject({
      hostId: PeerId,
      name: z.string(),
      version: z.string(),
      protocol: z.literal(1),
      instance: z.string(),
      capabilities: z.array(z.string()),
      models: z.array(z.string()),
      workspaces: z.array(Workspace),
      limits: z.record(z.string(), z.unknown()),
      /** Extensions (docs/protocol.md): whether the store can commit; the demo model's label. */
      persistence: z.optional(
        z.looseObject({
          ok: z.boolean(),
          since: z.optional(z.number()),
          message: z.optional(z.string()),
        }),
      ),
      modelNotice: z.optional(z.string()),
      /**
       * Whether the host's database went back in time (docs/protocol.md Appendix F):
       * `rewound` until the user acknowledges it on the Mac.
       */
      history: z.optional(z.looseObject({ rewound: z.optional(HistoryRewound) })),
      /** The model a run uses when it names none (one of `models`); absent without a model. */
      model: z.optional(z.string()),
      /** Web Push (docs/push.md): the VAPID public key a remote subscribes with. */
      push: z.optional(z.looseObject({ vapidPublicKey: z.string() })),
      /** MCP servers the host is configured with (docs/protocol.md §10); absent with none. */
      mcpServers: z.optional(z.array(McpServerInfo)),
      // `agents`: the ACP agents the host is configured with (`AgentList` of
      // protocol/agents.ts, parsed where shown: named here it would cost the first load).
    }),
  },
  'run.submit': {
    command: true,
    args: z.strictObject({
      commandId: CommandId,
      sessionId: z.optional(OpaqueId),
      workspace: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
      input: RunInput,
      model: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
      /** A new session's: `worktree` works on a branch of its own (docs/worktrees.md). */
      isolation: z.optional(Isolation),
      /** With `worktree`: the branch, tag or commit it starts from (default `HEAD`). */
      base: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
      /**
       * An ACP agent of `host.info.agents` runs the task instead of the host's own loop
       * (the host refuses a name it is not configured with).
       */
      agent: z.optional(z.string()),
    }),
    result: z.looseObject({
      runId: OpaqueId,
      sessionId: OpaqueId,
      state: RunState,
      deduplicated: z.boolean(),
    }),
  },
  'run.integrate': {
    command: true,
    args: z.strictObject({
      commandId: CommandId,
      runId: OpaqueId,
      action: IntegrateAction,
      treeDigest: GitObjectId,
    }),
    /** `IntegrateResult` of protocol/worktree.ts: parsed where it is shown (first load). */
    result: z.looseObject({}),
  },
  'run.review': {
    command: false,
    args: z.strictObject({ runId: OpaqueId }),
    /** `RunReview` of protocol/worktree.ts: parsed where it is shown (first load). */
    result: z.looseObject({}),
  },
  'run.cancel': {
    command: true,
    args: z.strictObject({ commandId: CommandId, runId: OpaqueId }),
    result: z.looseObject({ state: RunState }),
  },
  'run.continue': {
    command: true,
    args: z.strictObject({ commandId: CommandId, runId: OpaqueId, input: z.optional(RunInput) }),
    result: z.looseObject({ runId: OpaqueId }),
  },
  'approval.respond': {
    command: true,
    args: z.strictObject({
      commandId: CommandId,
      approvalId: OpaqueId,
      toolCallId: OpaqueId,
      inputDigest: Digest,
      decision: z.enum(['approve', 'deny']),
      note: z.optional(Note),
    }),
    result: z.looseObject({ status: z.enum(['approved', 'denied']) }),
  },
  'toolcall.reconcile': {
    command: true,
    args: z.strictObject({
      commandId: CommandId,
      toolCallId: OpaqueId,
      outcome: z.enum(['happened', 'did_not_happen', 'unknown']),
      note: z.optional(Note),
    }),
    result: EmptyResult,
  },
  subscribe: {
    command: false,
    args: z.strictObject({ afterSeq: z.optional(Seq), scope: z.optional(SubscribeScope) }),
    result: z.looseObject({
      sub: z.string(),
      mode: z.enum(['replay', 'snapshot']),
      cursor: Seq,
      snapshot: z.optional(z.union([UnscopedSnapshot, RunGetResult, z.looseObject({})])),
    }),
  },
  unsubscribe: {
    command: false,
    args: z.strictObject({ sub: z.string().check(z.minLength(1), z.maxLength(128)) }),
    result: EmptyResult,
  },
  'sessions.list': {
    command: false,
    args: z.strictObject({
      limit: z.optional(PageLimit),
      before: z.optional(z.string().check(z.maxLength(256))),
    }),
    result: z.looseObject({ sessions: z.array(Session), next: z.optional(z.string()) }),
  },
  'runs.list': {
    command: false,
    args: z.strictObject({
      sessionId: z.optional(OpaqueId),
      states: z.optional(z.array(RunState).check(z.maxLength(8))),
      limit: z.optional(PageLimit),
      before: z.optional(z.string().check(z.maxLength(256))),
      query: z.optional(RunQuery),
    }),
    result: z.looseObject({ runs: z.array(Run), next: z.optional(z.string()) }),
  },
  'run.get': {
    command: false,
    args: z.strictObject({ runId: OpaqueId }),
    result: RunGetResult,
  },
  'run.changes': {
    command: false,
    args: z.strictObject({ runId: OpaqueId }),
    /** `RunChanges` of protocol/run-changes.ts: parsed where it is shown (first load). */
    result: z.looseObject({}),
  },
  'run.usage': {
    command: false,
    args: z.strictObject({ runId: OpaqueId }),
    result: z.looseObject({ run: TokenUsage, session: TokenUsage }),
  },
  'output.read': {
    command: false,
    args: z.strictObject({ toolCallId: OpaqueId, ...PageRange }),
    result: ReadResult,
  },
  'artifact.read': {
    command: false,
    args: z.strictObject({ artifactId: OpaqueId, ...PageRange }),
    result: ReadResult,
  },
  'download.link': {
    command: false,
    args: z.union([
      z.strictObject({ toolCallId: OpaqueId }),
      z.strictObject({ artifactId: OpaqueId }),
    ]),
    result: z.looseObject({ url: z.string(), expiresAt: Millis }),
  },
  'devices.list': {
    command: false,
    args: Empty,
    result: z.looseObject({ devices: z.array(Device) }),
  },
  'device.revoke': {
    command: true,
    args: z.strictObject({ commandId: CommandId, deviceId: PeerId }),
    result: EmptyResult,
  },
  'device.rename': {
    command: true,
    args: z.strictObject({ commandId: CommandId, deviceId: PeerId, name: DeviceName }),
    result: EmptyResult,
  },
  'push.subscribe': {
    command: true,
    args: z.strictObject({
      commandId: CommandId,
      subscription: PushSubscription,
      kinds: z.optional(z.array(SubscribablePushKind).check(z.maxLength(8))),
    }),
    result: EmptyResult,
  },
  'push.unsubscribe': {
    command: true,
    args: z.strictObject({ commandId: CommandId }),
    result: EmptyResult,
  },
  'push.test': {
    command: true,
    args: z.strictObject({ commandId: CommandId }),
    result: z.looseObject({
      status: z.enum(['delivered', 'failed']),
      httpStatus: z.optional(z.int()),
      error: z.optional(z.string()),
    }),
  },
  'policy.rules': {
    command: false,
    args: Empty,
    result: z.looseObject({ rules: z.array(AllowRule) }),
  },
  'policy.rule_add': {
    command: true,
    args: z.strictObject({
      commandId: CommandId,
      approvalId: OpaqueId,
      toolCallId: OpaqueId,
      inputDigest: Digest,
    }),
    result: z.looseObject({ ruleId: OpaqueId, status: z.literal('approved') }),
  },
  'policy.rule_remove': {
    command: true,
    args: z.strictObject({ commandId: CommandId, ruleId: OpaqueId }),
    result: EmptyResult,
  },
  /** One chunk of an attachment (docs/attachments.md); answers where the upload stands. */
  'attachment.put': {
    command: true,
    args: AttachmentPutArgs,
    /** `AttachmentProgress` of protocol/attachment-records.ts: parsed where it is used. */
    result: EmptyResult,
  },
  /**
   * One chunk of a complete attachment a run was given (or this device sent): `{attachmentId,
   * index, total, data}`, `data` base64url, chunks of `limits.attachmentChunkBytes`.
   */
  'attachment.read': {
    command: false,
    args: z.strictObject({ attachmentId: AttachmentId, index: ChunkIndex }),
    result: EmptyResult,
  },
  /** Where an upload stands, to resume it: `not_found` when the host has none of it. */
  'attachment.status': {
    command: false,
    args: z.strictObject({ attachmentId: AttachmentId }),
    /** `AttachmentProgress` of protocol/attachment-records.ts: parsed where it is used. */
    result: EmptyResult,
  },
  /**
   * An audio attachment made text by the host's transcription endpoint (docs/voice.md):
   * `{text}`, parsed where it is used; the audio is deleted once transcribed.
   */
  'voice.transcribe': {
    command: true,
    args: z.strictObject({
      commandId: CommandId,
      attachmentId: AttachmentId,
      language: z.optional(z.string().check(z.maxLength(16))),
    }),
    result: EmptyResult,
  },
} as const;

export type OpName = keyof typeof OPS;
export const OP_NAMES = Object.keys(OPS) as [OpName, ...OpName[]];
export type OpArgs<O extends OpName> = z.infer<(typeof OPS)[O]['args']>;
export type OpResult<O extends OpName> = z.infer<(typeof OPS)[O]['result']>;

/** Ops that change state and therefore carry a `commandId` (section 6.1). */
export type CommandOpName = {
  [O in OpName]: (typeof OPS)[O]['command'] extends true ? O : never;
}[OpName];

export function isOpName(op: string): op is OpName {
  return Object.hasOwn(OPS, op);
}
