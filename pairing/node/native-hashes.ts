/**
 * SHA-256 and HKDF-SHA256 through node:crypto (OpenSSL): the key schedule's hashes on the
 * host and the Node client, the same bytes as @noble/hashes in a fraction of its time.
 */
import { createHash, hkdfSync } from 'node:crypto';
import type { ChannelHashes } from '../channel-crypto.js';

export const nativeHashes: ChannelHashes = {
  sha256: (data) => new Uint8Array(createHash('sha256').update(data).digest()),
  hkdfSha256: (ikm, salt, info, length) =>
    new Uint8Array(hkdfSync('sha256', ikm, salt, info, length)),
};
