/**
 * Web Push (docs/push.md): the subscription a remote hands the host, the kinds of push it
 * may ask for, a device's push state in `devices.list`, and the payload the host encrypts
 * to the subscription (RFC 8291) for the app's service worker to show.
 */
import { z } from 'zod/mini';
import { b64uBytes, Millis, OpaqueId, PeerId } from './primitives.js';

/**
 * What a push is about. `approval`: a tool call waits for an answer. `run_failed`,
 * `run_interrupted`: any run ended so. `run_ended`: any end of a run this device submitted
 * (only when the subscription asks for it). `review`: a run in its own worktree committed
 * changes on its branch, ready to review (docs/worktrees.md; a subscription that asked
 * for `approval` gets it too). `test`: `push.test`.
 */
const SUBSCRIBABLE_PUSH_KINDS = [
  'approval',
  'run_failed',
  'run_interrupted',
  'run_ended',
  'review',
] as const;
export const PushKind = z.enum([...SUBSCRIBABLE_PUSH_KINDS, 'test']);
export type PushKind = z.infer<typeof PushKind>;

/** The kinds `push.subscribe` may ask for: all but `test`, which only `push.test` sends. */
export const SubscribablePushKind = z.enum(SUBSCRIBABLE_PUSH_KINDS);

/** The kinds a subscription gets when `push.subscribe` names none. */
export const DEFAULT_PUSH_KINDS: readonly PushKind[] = [
  'approval',
  'run_failed',
  'run_interrupted',
  'review',
];

/**
 * `PushSubscription.toJSON()` as a browser gives it: an endpoint URL (checked by the host
 * against its allowed push services), its expiry or null, and the keys the payload is
 * encrypted to: `p256dh` the 65-byte uncompressed P-256 point, `auth` the 16-byte secret,
 * both canonical base64url (no padding). The app reaches it as `OPS['push.subscribe'].args`.
 */
export const PushSubscription = z.strictObject({
  endpoint: z.string().check(z.minLength(1), z.maxLength(2048)),
  expirationTime: z.optional(z.nullable(Millis)),
  keys: z.strictObject({ p256dh: b64uBytes(65), auth: b64uBytes(16) }),
});

/** A device's push state as `devices.list` shows it. */
export const DevicePush = z.looseObject({
  subscribed: z.boolean(),
  lastDeliveredAt: z.nullable(Millis),
  lastError: z.nullable(z.string()),
});
export type DevicePush = z.infer<typeof DevicePush>;

/**
 * The JSON the host encrypts into each push. `tag` is the same for every push about one
 * approval (or one run, or one worktree's branch), so a notification replaces the earlier one rather than stacking;
 * `title` and `body` are ready to show (`body` follows the host's `push.body` setting and
 * may be empty). The app opens `#/run/<hostId>/<runId>` on a click.
 */
export const PushPayload = z.looseObject({
  v: z.literal(1),
  kind: PushKind,
  hostId: PeerId,
  hostName: z.string(),
  runId: z.nullable(OpaqueId),
  approvalId: z.optional(OpaqueId),
  title: z.string(),
  body: z.string(),
  tag: z.string(),
  at: Millis,
});
export type PushPayload = z.infer<typeof PushPayload>;
