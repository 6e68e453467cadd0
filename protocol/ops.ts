/**
 * Operations a remote may request (docs/protocol.md §6.2): args and result schemas.
 * Args are strict (an unknown field is a clear `invalid_request`); results are loose so a
 * newer host may add fields.
 */
import { z } from 'zod';
import {
  Approval,
  Artifact,
  Device,
  LiveState,
  Message,
  Run,
  RunInput,
  Session,
  ToolCall,
  Workspace,
} from './records.js';
import { CommandId, Digest, Millis, OpaqueId, PeerId, Seq } from './primitives.js';
import { PushKind, PushSubscription } from './push.js';
import { RunState } from './states.js';

/** Largest page of output or artifact text one read returns (bytes). */
export const MAX_READ_BYTES = 262_144;

const Empty = z.strictObject({});
const EmptyResult = z.looseObject({});
const PageLimit = z.number().int().min(1).max(200);
const Note = z.string().max(2000);

const PageRange = {
  offset: z.number().int().nonnegative(),
  limit: z.number().int().min(1).max(MAX_READ_BYTES),
};

const ReadResult = z.looseObject({
  text: z.string(),
  offset: z.number().int().nonnegative(),
  nextOffset: z.number().int().nonnegative(),
  eof: z.boolean(),
  totalBytes: z.number().int().nonnegative(),
  truncated: z.boolean(),
});

export const RunGetResult = z.looseObject({
  run: Run,
  messages: z.array(Message),
  toolCalls: z.array(ToolCall),
  approvals: z.array(Approval),
  artifacts: z.array(Artifact),
  live: LiveState.optional(),
  cursor: Seq,
});
export type RunGetResult = z.infer<typeof RunGetResult>;

export const SubscribeScope = z.union([
  z.strictObject({ sessionId: OpaqueId }),
  z.strictObject({ runId: OpaqueId }),
  z.strictObject({}),
]);
export type SubscribeScope = z.infer<typeof SubscribeScope>;

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
      persistence: z
        .looseObject({
          ok: z.boolean(),
          since: z.number().optional(),
          message: z.string().optional(),
        })
        .optional(),
      modelNotice: z.string().optional(),
      /** Web Push (docs/push.md): the VAPID public key a remote subscribes with. */
      push: z.looseObject({ vapidPublicKey: z.string() }).optional(),
    }),
  },
  'run.submit': {
    command: true,
    args: z.strictObject({
      commandId: CommandId,
      sessionId: OpaqueId.optional(),
      workspace: z.string().min(1).max(4096).optional(),
      input: RunInput,
      model: z.string().min(1).max(200).optional(),
    }),
    result: z.looseObject({
      runId: OpaqueId,
      sessionId: OpaqueId,
      state: RunState,
      deduplicated: z.boolean(),
    }),
  },
  'run.cancel': {
    command: true,
    args: z.strictObject({ commandId: CommandId, runId: OpaqueId }),
    result: z.looseObject({ state: RunState }),
  },
  'run.continue': {
    command: true,
    args: z.strictObject({ commandId: CommandId, runId: OpaqueId, input: RunInput.optional() }),
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
      note: Note.optional(),
    }),
    result: z.looseObject({ status: z.enum(['approved', 'denied']) }),
  },
  'toolcall.reconcile': {
    command: true,
    args: z.strictObject({
      commandId: CommandId,
      toolCallId: OpaqueId,
      outcome: z.enum(['happened', 'did_not_happen', 'unknown']),
      note: Note.optional(),
    }),
    result: EmptyResult,
  },
  subscribe: {
    command: false,
    args: z.strictObject({ afterSeq: Seq.optional(), scope: SubscribeScope.optional() }),
    result: z.looseObject({
      sub: z.string(),
      mode: z.enum(['replay', 'snapshot']),
      cursor: Seq,
      snapshot: z.union([UnscopedSnapshot, RunGetResult, z.looseObject({})]).optional(),
    }),
  },
  unsubscribe: {
    command: false,
    args: z.strictObject({ sub: z.string().min(1).max(128) }),
    result: EmptyResult,
  },
  'sessions.list': {
    command: false,
    args: z.strictObject({ limit: PageLimit.optional(), before: z.string().max(256).optional() }),
    result: z.looseObject({ sessions: z.array(Session), next: z.string().optional() }),
  },
  'runs.list': {
    command: false,
    args: z.strictObject({
      sessionId: OpaqueId.optional(),
      states: z.array(RunState).max(8).optional(),
      limit: PageLimit.optional(),
      before: z.string().max(256).optional(),
    }),
    result: z.looseObject({ runs: z.array(Run), next: z.string().optional() }),
  },
  'run.get': {
    command: false,
    args: z.strictObject({ runId: OpaqueId }),
    result: RunGetResult,
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
  'push.subscribe': {
    command: true,
    args: z.strictObject({
      commandId: CommandId,
      subscription: PushSubscription,
      kinds: z
        .array(PushKind.exclude(['test']))
        .max(8)
        .optional(),
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
      httpStatus: z.number().int().optional(),
      error: z.string().optional(),
    }),
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
