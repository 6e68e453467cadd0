/**
 * The first frames of a socket (docs/protocol.md §3 and §4): `pair` → challenge →
 * confirm → `paired`, or `hello` → `welcome`. Each step says what to send and where the
 * connection goes next; refusals are logged and offers' failed attempts counted here.
 */
import { TetherError } from '../../protocol/index.js';
import {
  acceptHello,
  acceptPair,
  type ChannelCrypto,
  type FrameCipher,
  type HostPairing,
  type Identity,
} from '../../pairing/index.js';
import type { Logger } from '../log/index.js';
import type { Runtime } from '../runtime/index.js';
import type { RefusalLog } from './refusal-log.js';

/** What the handshake needs of the host and of the socket it runs on. */
export interface HandshakeContext {
  runtime: Runtime;
  identity: Identity;
  crypto: ChannelCrypto;
  hostName: string;
  log: Logger;
  now: () => number;
  /** One line per refusal reason and address per interval. */
  refusals: RefusalLog;
  /** Before a hello naming this paired device is checked: an error refuses it (rate limit). */
  admitHello(deviceId: string): TetherError | null;
  /** After a hello verified, before `welcome`: an error refuses it (too many channels). */
  admitChannel(deviceId: string): TetherError | null;
  /** The socket's id (`conn` of the welcome) and its peer's address. */
  connectionId: string;
  address: string;
}

/** Where a handshake frame leads: each `reply` is sent as a text frame. */
export type HandshakeStep =
  /** A `pair` accepted: send the challenge and wait for the confirmation. */
  | { step: 'challenge'; pairing: HostPairing; reply: string }
  /** Pairing done and recorded: send `paired`, then close normally. */
  | { step: 'paired'; reply: string }
  /** A `hello` accepted: send `welcome`; the channel is open under `cipher`. */
  | { step: 'welcome'; deviceId: string; cipher: FrameCipher; reply: string }
  /** Refused: send the error frame and close with its close code. */
  | { step: 'refused'; error: TetherError };

/** Counts a failed attempt on the offer (when the pairing names one) and refuses. */
function pairingRefused(
  ctx: HandshakeContext,
  error: TetherError,
  countAttemptOn: string | undefined,
): HandshakeStep {
  if (countAttemptOn !== undefined) ctx.runtime.pairing.countFailure(countAttemptOn);
  return { step: 'refused', error };
}

/** Logs a refused hello (once per code and address per interval) and refuses. */
function helloRefused(ctx: HandshakeContext, error: TetherError, detail: string): HandshakeStep {
  ctx.refusals.refused(error.code, ctx.address, 'hello refused', { detail });
  return { step: 'refused', error };
}

/**
 * The first frame of a socket: a `pair` or a `hello`.
 *
 * @throws TetherError `protocol_error` for a frame that is not JSON or neither of the two.
 */
export function beginHandshake(ctx: HandshakeContext, text: string): HandshakeStep {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch (cause) {
    throw new TetherError('protocol_error', 'a handshake frame that is not JSON', { cause });
  }
  const kind = (frame as { t?: unknown } | null)?.t;
  if (kind !== 'pair' && kind !== 'hello') {
    throw new TetherError('protocol_error', 'expected a pair or hello frame');
  }
  if (kind === 'pair') {
    const accepted = acceptPair(frame, {
      identity: ctx.identity,
      hostName: ctx.hostName,
      now: ctx.now(),
      lookupOffer: (offerId) => ctx.runtime.pairing.findOffer(offerId),
    });
    if (!accepted.ok) return pairingRefused(ctx, accepted.error, accepted.countAttemptOn);
    return {
      step: 'challenge',
      pairing: accepted.pairing,
      reply: JSON.stringify(accepted.challenge),
    };
  }
  // The rate limit comes before any signature check or key agreement, so a refusal is cheap.
  const claimed = (frame as { device?: unknown }).device;
  const known =
    typeof claimed === 'string' && claimed.length <= 64
      ? ctx.runtime.devices.find(claimed)
      : undefined;
  const limited = known === undefined ? null : ctx.admitHello(known.deviceId);
  if (limited !== null) return helloRefused(ctx, limited, 'over the hello rate of its device');
  const hello = acceptHello(frame, {
    identity: ctx.identity,
    crypto: ctx.crypto,
    connectionId: ctx.connectionId,
    instanceId: ctx.runtime.instance,
    lookupDevice: (deviceId) => {
      const device = deviceId === known?.deviceId ? known : ctx.runtime.devices.find(deviceId);
      return device && { devicePk: device.devicePk, revoked: device.revokedAt !== null };
    },
  });
  if (!hello.ok) return helloRefused(ctx, hello.error, hello.error.internalReason);
  const crowded = ctx.admitChannel(hello.deviceId);
  if (crowded !== null) {
    hello.cipher.close();
    return helloRefused(ctx, crowded, 'too many open channels for its device');
  }
  return {
    step: 'welcome',
    deviceId: hello.deviceId,
    cipher: hello.cipher,
    reply: JSON.stringify(hello.welcome),
  };
}

/** The pairing's confirmation: the device is recorded and `paired` goes back. */
export function confirmPairing(
  ctx: HandshakeContext,
  pairing: HostPairing,
  text: string,
): HandshakeStep {
  const confirmed = pairing.confirm(text);
  if (!confirmed.ok) return pairingRefused(ctx, confirmed.error, confirmed.countAttemptOn);
  if (!ctx.runtime.pairing.recordPairedDevice(confirmed.offerId, confirmed.device, confirmed.sas)) {
    return { step: 'refused', error: new TetherError('pair_failed', 'pairing failed') };
  }
  ctx.log.info('device paired', {
    deviceId: confirmed.device.deviceId,
    name: confirmed.device.name,
    sas: confirmed.sas,
  });
  return { step: 'paired', reply: JSON.stringify(confirmed.paired) };
}
