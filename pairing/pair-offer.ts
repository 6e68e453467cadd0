/**
 * A pairing offer as the host keeps it (docs/protocol.md §3): single use, short-lived, void after
 * {@link MAX_FAILED_ATTEMPTS} failed attempts.
 */
import { b64u } from '../protocol/index.js';
import { type RandomBytes, secureRandomBytes } from './random.js';

export interface PairOffer {
  /** b64u of 16 random bytes: the key the host looks the offer up by. */
  offerId: string;
  /** 32 random bytes, shown only in the link. */
  psk: Uint8Array;
  /** Milliseconds since the epoch; the offer is expired from this instant on. */
  expiresAt: number;
  used: boolean;
  failedAttempts: number;
}

const PAIR_OFFER_TTL_MS = 120_000;
export const MAX_FAILED_ATTEMPTS = 3;

/** A fresh offer, valid for `ttlMs` from `now`. */
export function createPairOffer(
  now: number,
  options: { ttlMs?: number; randomBytes?: RandomBytes } = {},
): PairOffer {
  const { ttlMs = PAIR_OFFER_TTL_MS, randomBytes = secureRandomBytes } = options;
  return {
    offerId: b64u(randomBytes(16)),
    psk: randomBytes(32),
    expiresAt: now + ttlMs,
    used: false,
    failedAttempts: 0,
  };
}
