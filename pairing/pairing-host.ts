/**
 * The host's side of pairing (docs/protocol.md §3): `pair` → `pair_challenge`, then
 * `pair_confirm` → `paired` and the device to store.
 */
import nacl from 'tweetnacl';
import {
  b64u,
  fromB64u,
  PAIR_REFUSALS,
  type PairChallengeMessage,
  PairChallengePayload,
  PairConfirmMessage,
  type PairedMessage,
  PairMessage,
  PairPayload,
  type PairRefusal,
  parseWith,
} from '../protocol/index.js';
import {
  decodeFrame,
  HandshakeError,
  type HandshakeFailure,
  parseFrame,
  requireVersion,
  settle,
} from './handshake-frame.js';
import { type Identity, peerIdOf } from './identity.js';
import { pairKey, shortAuthString } from './key-schedule.js';
import { openPairBox, sealPairBox } from './pair-box.js';
import { MAX_FAILED_ATTEMPTS, type PairOffer } from './pair-offer.js';
import { type RandomBytes, secureRandomBytes } from './random.js';
import { Label, type PairBinding, pairTranscript } from './transcript.js';

export interface HostPairingOptions {
  identity: Identity;
  /** Shown on the device: at most 64 characters. */
  hostName: string;
  /** Milliseconds since the epoch, to check the offer's expiry. */
  now: number;
  /** The offer by its b64u id, as the host keeps it, or undefined when there is none. */
  lookupOffer: (offerId: string) => PairOffer | undefined;
  /** Called for nonceH (16 bytes), then for the box nonce (24 bytes). */
  randomBytes?: RandomBytes;
}

/**
 * A failed pairing step. Its message is always "pairing failed" (close 4409), or a
 * protocol or version error for a malformed frame. When `countAttemptOn` is set the caller
 * adds one to that offer's `failedAttempts`: the offer is void at {@link MAX_FAILED_ATTEMPTS}.
 */
export interface PairingFailure extends HandshakeFailure {
  countAttemptOn?: string;
}

/** A device the host has just paired, to store with the time and a `device.paired` event. */
export interface PairedDevice {
  deviceId: string;
  devicePk: Uint8Array;
  name: string;
  platform: string;
}

export type PairConfirmResult =
  | { ok: true; offerId: string; device: PairedDevice; paired: PairedMessage; sas: string }
  | PairingFailure;

/** The host's pairing after `pair_challenge` was sent; it takes exactly one `pair_confirm`. */
export interface HostPairing {
  /**
   * Checks the device's signature. On success the caller, in one transaction, marks
   * `offerId` used (failing if it already is: two devices may race with one link), stores
   * the device and appends `device.paired`, then sends `paired` and closes with 1000.
   */
  confirm(frame: unknown): PairConfirmResult;
}

export type PairAcceptResult =
  { ok: true; challenge: PairChallengeMessage; pairing: HostPairing } | PairingFailure;

/**
 * Answers a `pair` text frame (JSON text or parsed): checks the version, the offer
 * (unknown, expired, used, void) and opens the box. Throws `invalid_request` only when
 * `hostName` does not fit the protocol.
 */
export function acceptPair(frame: unknown, options: HostPairingOptions): PairAcceptResult {
  const { identity, hostName, now, lookupOffer, randomBytes = secureRandomBytes } = options;
  const found = settle(() => {
    const value = decodeFrame(frame);
    requireVersion(value, 'pair');
    const message = parseFrame(PairMessage, value, 'pair');
    const offer = lookupOffer(message.offer);
    // The link's own state is said (each wants another cure); later failures are not.
    if (offer === undefined) throw refused('unknown', 'unknown offer');
    if (offer.used) throw refused('used', 'offer already used');
    if (offer.failedAttempts >= MAX_FAILED_ATTEMPTS) {
      throw refused('void', 'offer void after failures');
    }
    if (now >= offer.expiresAt) throw refused('expired', 'offer expired');
    return { message, offer };
  });
  if (!found.ok) return found;
  const { message, offer } = found;
  const answered = settle(() => {
    const offerId = fromB64u(offer.offerId);
    const key = pairKey(offerId, offer.psk);
    const payload = openPairBox(message.box, key, PairPayload);
    if (payload === undefined) throw pairFailed('pair box did not open to a valid payload');
    const binding: PairBinding = {
      offerId,
      hostPk: identity.publicKey,
      devicePk: fromB64u(payload.deviceKey),
      nonceC: fromB64u(payload.nonce),
      nonceH: randomBytes(16),
    };
    const sig = nacl.sign.detached(pairTranscript(Label.pairHost, binding), identity.secretKey);
    const sealed = parseWith(
      PairChallengePayload,
      { hostName, nonce: b64u(binding.nonceH), sig: b64u(sig) },
      'pair challenge payload',
    );
    const challenge: PairChallengeMessage = {
      t: 'pair_challenge',
      box: sealPairBox(sealed, key, randomBytes(24)),
    };
    return { challenge, pairing: new PairingAsHost(offer.offerId, identity, binding, payload) };
  });
  return answered.ok ? answered : { ...answered, countAttemptOn: offer.offerId };
}

class PairingAsHost implements HostPairing {
  private confirmed = false;

  constructor(
    private readonly offerId: string,
    private readonly identity: Identity,
    private readonly binding: PairBinding,
    private readonly payload: PairPayload,
  ) {}

  confirm(frame: unknown): PairConfirmResult {
    const result = settle(() => {
      if (this.confirmed) {
        throw new HandshakeError(
          'protocol_error',
          'unexpected pair_confirm',
          'second pair_confirm',
        );
      }
      this.confirmed = true;
      const message = parseFrame(PairConfirmMessage, decodeFrame(frame), 'pair_confirm');
      const signed = pairTranscript(Label.pairDevice, this.binding);
      if (!nacl.sign.detached.verify(signed, fromB64u(message.sig), this.binding.devicePk)) {
        throw pairFailed('device signature did not verify');
      }
      const deviceId = peerIdOf(this.binding.devicePk);
      const sas = shortAuthString(this.binding);
      const device: PairedDevice = {
        deviceId,
        devicePk: this.binding.devicePk,
        name: this.payload.name,
        platform: this.payload.platform,
      };
      const paired: PairedMessage = { t: 'paired', hostId: this.identity.id, deviceId, sas };
      return { offerId: this.offerId, device, paired, sas };
    });
    // Only a holder of the psk gets this far, so counting cannot lock out anyone else.
    return result.ok ? result : { ...result, countAttemptOn: this.offerId };
  }
}

function pairFailed(internalReason: string): HandshakeError {
  return new HandshakeError('pair_failed', 'pairing failed', internalReason);
}

function refused(refusal: PairRefusal, internalReason: string): HandshakeError {
  return new HandshakeError('pair_failed', PAIR_REFUSALS[refusal], internalReason);
}
