/**
 * Text frames before a channel opens: pairing (docs/protocol.md §3) and hello/welcome (§4).
 */
import { z } from 'zod/mini';
import { b64uBytes, b64uString, PeerId } from './primitives.js';

/** `nonce ‖ secretbox(...)`: at least 24 + 16 bytes; payloads are small. */
const SealedBox = b64uString(16 * 1024).check(z.minLength(54));

/** Device → host, step 1. `v` is checked separately so a new version gets 4426, not 4400. */
export const PairMessage = z.object({
  t: z.literal('pair'),
  v: z.int(),
  offer: b64uBytes(16),
  box: SealedBox,
});
export type PairMessage = z.infer<typeof PairMessage>;

/** `P`, sealed inside `pair.box`. */
export const PairPayload = z.object({
  deviceKey: b64uBytes(32),
  name: z.string().check(z.minLength(1), z.maxLength(64)),
  platform: z.string().check(z.minLength(1), z.maxLength(32)),
  nonce: b64uBytes(16),
});
export type PairPayload = z.infer<typeof PairPayload>;

/** Host → device, step 2. */
export const PairChallengeMessage = z.object({ t: z.literal('pair_challenge'), box: SealedBox });
export type PairChallengeMessage = z.infer<typeof PairChallengeMessage>;

/** `Q`, sealed inside `pair_challenge.box`. */
export const PairChallengePayload = z.object({
  hostName: z.string().check(z.minLength(1), z.maxLength(64)),
  nonce: b64uBytes(16),
  sig: b64uBytes(64),
});
export type PairChallengePayload = z.infer<typeof PairChallengePayload>;

/** Device → host, step 3. */
export const PairConfirmMessage = z.object({ t: z.literal('pair_confirm'), sig: b64uBytes(64) });
export type PairConfirmMessage = z.infer<typeof PairConfirmMessage>;

/** Host → device, step 4. */
export const PairedMessage = z.object({
  t: z.literal('paired'),
  hostId: PeerId,
  deviceId: PeerId,
  sas: z.string().check(z.regex(/^\d{6}$/)),
});
export type PairedMessage = z.infer<typeof PairedMessage>;

/** Device → host, opening a channel. */
export const HelloMessage = z.object({
  t: z.literal('hello'),
  v: z.array(z.int()).check(z.minLength(1), z.maxLength(16)),
  device: PeerId,
  eph: b64uBytes(32),
  nonce: b64uBytes(16),
  sig: b64uBytes(64),
});
export type HelloMessage = z.infer<typeof HelloMessage>;

/** Host → device, opening a channel. */
export const WelcomeMessage = z.object({
  t: z.literal('welcome'),
  v: z.int(),
  eph: b64uBytes(32),
  sig: b64uBytes(64),
  conn: z.string().check(z.minLength(1), z.maxLength(128)),
  instance: z.string().check(z.minLength(1), z.maxLength(128)),
});
export type WelcomeMessage = z.infer<typeof WelcomeMessage>;

/** Host → device before closing a socket during a handshake. */
export const HandshakeErrorMessage = z.object({
  t: z.literal('error'),
  code: z.string(),
  message: z.string(),
});
export type HandshakeErrorMessage = z.infer<typeof HandshakeErrorMessage>;

/** Every text frame a remote may send. */
export const RemoteHandshakeMessage = z.discriminatedUnion('t', [
  PairMessage,
  PairConfirmMessage,
  HelloMessage,
]);
export type RemoteHandshakeMessage = z.infer<typeof RemoteHandshakeMessage>;

/** Every text frame the host may send. */
export const HostHandshakeMessage = z.discriminatedUnion('t', [
  PairChallengeMessage,
  PairedMessage,
  WelcomeMessage,
  HandshakeErrorMessage,
]);
export type HostHandshakeMessage = z.infer<typeof HostHandshakeMessage>;
