/**
 * Messages inside encrypted frames (docs/protocol.md §6).
 */
import { z } from 'zod/mini';
import { TetherError } from './errors.js';
import { Event } from './events.js';
import { OPS, isOpName, type OpArgs, type OpName } from './ops.js';
import { JsonObject, OpaqueId, Seq } from './primitives.js';
import { parseWith } from './validate.js';

export const RequestMessage = z.strictObject({
  t: z.literal('req'),
  id: z.string().check(z.minLength(1), z.maxLength(128)),
  op: z.string().check(z.minLength(1), z.maxLength(64)),
  args: JsonObject,
});
export type RequestMessage = z.infer<typeof RequestMessage>;

const PingMessage = z.strictObject({ t: z.literal('ping') });

/** Every message a remote may send inside a frame. */
export const RemoteMessage = z.discriminatedUnion('t', [RequestMessage, PingMessage]);
export type RemoteMessage = z.infer<typeof RemoteMessage>;

const WireErrorSchema = z.looseObject({
  code: z.string(),
  message: z.string(),
  retryable: z.boolean(),
  details: z.optional(JsonObject),
});

export const ResponseMessage = z.union([
  z.looseObject({
    t: z.literal('res'),
    id: z.string(),
    ok: z.literal(true),
    result: JsonObject,
  }),
  z.looseObject({
    t: z.literal('res'),
    id: z.string(),
    ok: z.literal(false),
    error: WireErrorSchema,
  }),
]);
export type ResponseMessage = z.infer<typeof ResponseMessage>;

const EventsMessage = z.looseObject({
  t: z.literal('events'),
  sub: z.string(),
  events: z.array(Event),
});

export const PreviewMessage = z.looseObject({
  t: z.literal('preview'),
  runId: OpaqueId,
  messageId: OpaqueId,
  offset: z.int().check(z.nonnegative()),
  text: z.string(),
  reasoning: z.optional(z.string()),
});
export type PreviewMessage = z.infer<typeof PreviewMessage>;

export const OutputMessage = z.looseObject({
  t: z.literal('output'),
  toolCallId: OpaqueId,
  offset: z.int().check(z.nonnegative()),
  text: z.string(),
});
export type OutputMessage = z.infer<typeof OutputMessage>;

export const LaggedMessage = z.looseObject({
  t: z.literal('lagged'),
  sub: z.string(),
  cursor: Seq,
});
const PongMessage = z.looseObject({ t: z.literal('pong') });

/**
 * An extension of the original contract (docs/protocol.md §6): the host's condition, sent
 * to every open connection when it changes and on opening while it is not ok.
 * `persistence: "failed"`: the store cannot commit, every command is answered
 * `persistence_failed`, reads work.
 */
export const StatusMessage = z.looseObject({
  t: z.literal('status'),
  persistence: z.enum(['ok', 'failed']),
  message: z.optional(z.string()),
});
export type StatusMessage = z.infer<typeof StatusMessage>;

/** Every message the host may send inside a frame. */
export const HostMessage = z.union([
  ResponseMessage,
  EventsMessage,
  PreviewMessage,
  OutputMessage,
  LaggedMessage,
  PongMessage,
  StatusMessage,
]);
export type HostMessage = z.infer<typeof HostMessage>;

/** A request whose op is known and whose args passed that op's schema. */
export type ValidRequest = { [O in OpName]: { id: string; op: O; args: OpArgs<O> } }[OpName];

/**
 * Validates a request's op and args: unknown op → `unknown_op`; bad args →
 * `invalid_request` listing every issue in `details.issues`.
 */
export function parseRequest(request: RequestMessage): ValidRequest {
  if (!isOpName(request.op)) {
    throw new TetherError('unknown_op', `unknown op: ${request.op}`, {
      details: { op: request.op },
    });
  }
  const args: unknown = parseWith(OPS[request.op].args, request.args, `args of ${request.op}`);
  return { id: request.id, op: request.op, args } as ValidRequest;
}
