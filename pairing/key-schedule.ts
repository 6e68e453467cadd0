/**
 * Keys derived from transcripts and shared secrets (docs/protocol.md sections 3 and 4).
 */
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { isAllZero, readU32be, utf8 } from '../protocol/index.js';
import { type ChannelCrypto, type ChannelHashes, pureJsCrypto } from './channel-crypto.js';
import { HandshakeError } from './handshake-frame.js';
import { Label, type PairBinding, pairTranscript } from './transcript.js';

/** @noble/hashes: pure JavaScript, for browsers. */
export const pureJsHashes: ChannelHashes = {
  sha256: (data) => sha256(data),
  hkdfSha256: (ikm, salt, info, length) => hkdf(sha256, ikm, salt, info, length),
};

/** HKDF-SHA256 (RFC 5869) with a UTF-8 info string. */
function hkdfSha256(ikm: Uint8Array, salt: Uint8Array, info: string, length: number): Uint8Array {
  return pureJsHashes.hkdfSha256(ikm, salt, utf8(info), length);
}

/** `Kp = HKDF(ikm=psk, salt=offerId, info="tether/v1/pair-key", L=32)`. */
export function pairKey(offerId: Uint8Array, psk: Uint8Array): Uint8Array {
  return hkdfSha256(psk, offerId, Label.pairKey, 32);
}

/** The short authentication string both sides show: six digits, leading zeros kept. */
export function shortAuthString(binding: PairBinding): string {
  const okm = hkdfSha256(pairTranscript(Label.sas, binding), new Uint8Array(0), Label.sas, 4);
  return String(readU32be(okm) % 1_000_000).padStart(6, '0');
}

/**
 * `dh = X25519(ownSecretKey, peerPublicKey)`, refusing an all-zero public key and an
 * all-zero result (tweetnacl accepts both; low-order points give the latter; libsodium
 * and OpenSSL refuse those, which {@link ChannelCrypto.scalarMult} turns into all zeros).
 */
export function sharedSecret(
  ownSecretKey: Uint8Array,
  peerPublicKey: Uint8Array,
  crypto: ChannelCrypto = pureJsCrypto,
): Uint8Array {
  if (isAllZero(peerPublicKey)) {
    throw new HandshakeError('protocol_error', 'invalid ephemeral key', 'all-zero ephemeral key');
  }
  const dh = crypto.scalarMult(ownSecretKey, peerPublicKey);
  if (isAllZero(dh)) {
    throw new HandshakeError('protocol_error', 'invalid ephemeral key', 'all-zero shared secret');
  }
  return dh;
}

/** One key per direction: `kC2H` (device → host) and `kH2C` (host → device). */
export interface ChannelKeys {
  c2h: Uint8Array;
  h2c: Uint8Array;
}

const KEYS_INFO = utf8(Label.keys);

/**
 * `okm = HKDF(ikm=dh, salt=SHA256(Twelcome), info="tether/v1/keys", L=64)`, split in two;
 * with `hashes` (native ones on the host and the Node client) or @noble/hashes.
 */
export function channelKeys(
  dh: Uint8Array,
  welcomeTranscript: Uint8Array,
  hashes: ChannelHashes = pureJsHashes,
): ChannelKeys {
  const okm = hashes.hkdfSha256(dh, hashes.sha256(welcomeTranscript), KEYS_INFO, 64);
  const keys = { c2h: okm.slice(0, 32), h2c: okm.slice(32, 64) };
  okm.fill(0);
  return keys;
}
