/**
 * Ed25519 identities of hosts and devices, and the ids derived from them (docs/protocol.md §1).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { z } from 'zod/mini';
import {
  b64u,
  b64uBytes,
  bytesEqual,
  fromB64u,
  parseWith,
  TetherError,
} from '../protocol/index.js';
import { type ChannelCrypto, pureJsCrypto } from './channel-crypto.js';
import { type RandomBytes, secureRandomBytes } from './random.js';

/** A host's or a device's signing identity, in memory. */
export interface Identity {
  /** `b64u(SHA256(publicKey)[0:16])`: the hostId or deviceId (22 characters). */
  readonly id: string;
  /** Ed25519 public key, 32 bytes. */
  readonly publicKey: Uint8Array;
  /** tweetnacl's 64-byte signing key (seed ‖ publicKey). Never leaves its owner. */
  readonly secretKey: Uint8Array;
}

/**
 * An identity as stored (keychain item, 0600 file, IndexedDB): the 32-byte Ed25519 seed
 * (RFC 8032's secret key) and the public key it must produce.
 */
export const SerializedIdentity = z.object({ publicKey: b64uBytes(32), seed: b64uBytes(32) });
export type SerializedIdentity = z.infer<typeof SerializedIdentity>;

/** `b64u(SHA256(publicKey)[0:16])`. */
export function peerIdOf(publicKey: Uint8Array): string {
  return b64u(sha256(publicKey).subarray(0, 16));
}

/** `raw(id)`: the 16 bytes behind a hostId or deviceId. */
export function rawPeerId(id: string): Uint8Array {
  const bytes = fromB64u(id);
  if (bytes.length !== 16) throw new TypeError(`not a peer id: ${id}`);
  return bytes;
}

/** The identity whose Ed25519 seed is `seed` (32 bytes). */
export function identityFromSeed(seed: Uint8Array, crypto: ChannelCrypto = pureJsCrypto): Identity {
  const pair = crypto.keyPairFromSeed(seed);
  return { id: peerIdOf(pair.publicKey), publicKey: pair.publicKey, secretKey: pair.secretKey };
}

/** A fresh identity: a host's on first start, a device's before its first pairing. */
export function createIdentity(randomBytes: RandomBytes = secureRandomBytes): Identity {
  const seed = randomBytes(32);
  const identity = identityFromSeed(seed);
  seed.fill(0);
  return identity;
}

export function serializeIdentity(identity: Identity): SerializedIdentity {
  return { publicKey: b64u(identity.publicKey), seed: b64u(identity.secretKey.subarray(0, 32)) };
}

/**
 * Reads a stored identity back; throws `invalid_request` when it fails the schema or its
 * public key is not the one its seed produces (a corrupted or mixed-up record).
 */
export function deserializeIdentity(value: unknown): Identity {
  const stored = parseWith(SerializedIdentity, value, 'identity');
  const identity = identityFromSeed(fromB64u(stored.seed));
  if (!bytesEqual(identity.publicKey, fromB64u(stored.publicKey))) {
    throw new TetherError('invalid_request', 'invalid identity: publicKey does not match seed');
  }
  return identity;
}
