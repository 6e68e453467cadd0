/**
 * The device's side of pairing (docs/protocol.md §3): `pair`, then `pair_confirm`, then
 * the record to keep.
 */
import nacl from 'tweetnacl';
import {
  b64u,
  fromB64u,
  PairChallengeMessage,
  PairChallengePayload,
  type PairConfirmMessage,
  PairedMessage,
  type PairMessage,
  PairPayload,
  parseWith,
  PROTOCOL_VERSION,
} from '../protocol/index.js';
import {
  decodeFrame,
  HandshakeError,
  type HandshakeResult,
  parseFrame,
  settle,
  throwIfErrorFrame,
} from './handshake-frame.js';
import { type Identity, peerIdOf } from './identity.js';
import { pairKey, shortAuthString } from './key-schedule.js';
import { openPairBox, sealPairBox } from './pair-box.js';
import type { PairLink } from './pair-link.js';
import type { PairedHost } from './paired-host.js';
import { type RandomBytes, secureRandomBytes } from './random.js';
import { Label, type PairBinding, pairTranscript } from './transcript.js';

export interface DevicePairingOptions {
  link: PairLink;
  identity: Identity;
  /** Shown on the host's device list: at most 64 characters. */
  name: string;
  /** e.g. `ios`, `macos`, `node`: at most 32 characters. */
  platform: string;
  /** Called for nonceC (16 bytes), then for the box nonce (24 bytes). */
  randomBytes?: RandomBytes;
}

/**
 * The device's pairing after `pair` was sent. Feed it the host's text frames in order;
 * a frame out of order, the host's `{"t":"error"}` or any failed check ends it.
 */
export interface DevicePairing {
  /** Checks the host's signature against the link's `hostPk`; answers `pair_confirm`. */
  receiveChallenge(frame: unknown): HandshakeResult<{ confirm: PairConfirmMessage }>;
  /** Checks `paired`; returns the record to store and the SAS to show. */
  receivePaired(frame: unknown): HandshakeResult<{ host: PairedHost; sas: string }>;
}

/**
 * Starts pairing from a scanned link: returns the `pair` message to send as the first text
 * frame. Throws `invalid_request` when `name` or `platform` does not fit the protocol.
 */
export function startPairing(options: DevicePairingOptions): {
  pair: PairMessage;
  pairing: DevicePairing;
} {
  const { link, identity, name, platform, randomBytes = secureRandomBytes } = options;
  const offerId = fromB64u(link.offerId);
  const key = pairKey(offerId, link.psk);
  const nonceC = randomBytes(16);
  const payload = parseWith(
    PairPayload,
    { deviceKey: b64u(identity.publicKey), name, platform, nonce: b64u(nonceC) },
    'pairing payload',
  );
  const pair: PairMessage = {
    t: 'pair',
    v: PROTOCOL_VERSION,
    offer: link.offerId,
    box: sealPairBox(payload, key, randomBytes(24)),
  };
  const binding = { offerId, hostPk: link.hostPk, devicePk: identity.publicKey, nonceC };
  return { pair, pairing: new PairingAsDevice(link, identity, key, binding) };
}

type State =
  | { phase: 'challenge' }
  | { phase: 'paired'; binding: PairBinding; hostName: string }
  | { phase: 'over' };

class PairingAsDevice implements DevicePairing {
  private state: State = { phase: 'challenge' };

  constructor(
    private readonly link: PairLink,
    private readonly identity: Identity,
    private readonly key: Uint8Array,
    private readonly binding: Omit<PairBinding, 'nonceH'>,
  ) {}

  receiveChallenge(frame: unknown): HandshakeResult<{ confirm: PairConfirmMessage }> {
    return settle(() => {
      const state = this.state;
      this.state = { phase: 'over' };
      if (state.phase !== 'challenge') throw unexpected('pair_challenge', state.phase);
      const value = decodeFrame(frame);
      throwIfErrorFrame(value);
      const message = parseFrame(PairChallengeMessage, value, 'pair_challenge');
      const challenge = openPairBox(message.box, this.key, PairChallengePayload);
      if (challenge === undefined) throw pairFailed('pairing failed', 'challenge box did not open');
      const binding = { ...this.binding, nonceH: fromB64u(challenge.nonce) };
      const signed = pairTranscript(Label.pairHost, binding);
      if (!nacl.sign.detached.verify(signed, fromB64u(challenge.sig), this.link.hostPk)) {
        throw pairFailed('this is not the host you scanned', 'host signature does not match link');
      }
      this.state = { phase: 'paired', binding, hostName: challenge.hostName };
      const sig = nacl.sign.detached(
        pairTranscript(Label.pairDevice, binding),
        this.identity.secretKey,
      );
      return { confirm: { t: 'pair_confirm', sig: b64u(sig) } };
    });
  }

  receivePaired(frame: unknown): HandshakeResult<{ host: PairedHost; sas: string }> {
    return settle(() => {
      const state = this.state;
      this.state = { phase: 'over' };
      if (state.phase !== 'paired') throw unexpected('paired', state.phase);
      const value = decodeFrame(frame);
      throwIfErrorFrame(value);
      const message = parseFrame(PairedMessage, value, 'paired');
      const { binding, hostName } = state;
      const hostId = peerIdOf(this.link.hostPk);
      const sas = shortAuthString(binding);
      if (message.hostId !== hostId)
        throw pairFailed('pairing failed', 'paired names another host');
      if (message.deviceId !== this.identity.id) {
        throw pairFailed('pairing failed', 'paired names another device');
      }
      if (message.sas !== sas) throw pairFailed('pairing failed', 'host computed another SAS');
      const host: PairedHost = {
        origin: this.link.origin,
        hostId,
        hostPk: b64u(this.link.hostPk),
        hostName,
        deviceId: this.identity.id,
        deviceSeed: b64u(this.identity.secretKey.subarray(0, 32)),
      };
      return { host, sas };
    });
  }
}

function unexpected(what: string, phase: State['phase']): HandshakeError {
  return new HandshakeError('protocol_error', `unexpected ${what}`, `${what} while ${phase}`);
}

function pairFailed(message: string, internalReason: string): HandshakeError {
  return new HandshakeError('pair_failed', message, internalReason);
}
