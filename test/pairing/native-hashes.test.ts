/**
 * The key schedule's hashes (issue 26): node:crypto's SHA-256 and HKDF-SHA256, which the
 * host and the Node client run, give the bytes of RFC 5869's vectors and of @noble/hashes,
 * which browsers run, for every input the channel gives them.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nativeChannelCrypto } from '../../pairing/node/index.js';
import { nativeHashes } from '../../pairing/node/testing.js';
import { channelKeys, pureJsHashes } from '../../pairing/testing.js';
import { bytesToHex } from '../../protocol/index.js';
import { hex } from './fixtures.js';

/** RFC 5869 appendix A, test cases 1 to 3 (SHA-256). */
const RFC_5869 = [
  {
    ikm: '0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b',
    salt: '000102030405060708090a0b0c',
    info: 'f0f1f2f3f4f5f6f7f8f9',
    length: 42,
    okm: '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865',
  },
  {
    ikm: Array.from({ length: 80 }, (_, i) => i.toString(16).padStart(2, '0')).join(''),
    salt: Array.from({ length: 80 }, (_, i) => (0x60 + i).toString(16).padStart(2, '0')).join(''),
    info: Array.from({ length: 80 }, (_, i) => (0xb0 + i).toString(16).padStart(2, '0')).join(''),
    length: 82,
    okm:
      'b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09' +
      'da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87',
  },
  {
    ikm: '0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b',
    salt: '',
    info: '',
    length: 42,
    okm: '8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8',
  },
];

describe.each([
  ['node:crypto', nativeHashes],
  ['@noble/hashes', pureJsHashes],
])('%s', (_name, hashes) => {
  it.each(RFC_5869.map((vector, index) => [index + 1, vector] as const))(
    'gives the okm of RFC 5869 test case %i',
    (_case, vector) => {
      const okm = hashes.hkdfSha256(
        hex(vector.ikm),
        hex(vector.salt),
        hex(vector.info),
        vector.length,
      );
      expect(bytesToHex(okm)).toBe(vector.okm);
    },
  );

  it('gives the SHA-256 of "abc" (FIPS 180-2)', () => {
    const digest = hashes.sha256(new TextEncoder().encode('abc'));
    expect(bytesToHex(digest)).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});

it('is what the host and the Node client derive channel keys with', () => {
  expect(nativeChannelCrypto().crypto.hashes).toBe(nativeHashes);
});

it('derives the same channel keys as @noble/hashes for 200 random secrets and transcripts', () => {
  for (let round = 0; round < 200; round++) {
    const dh = new Uint8Array(randomBytes(32));
    const transcript = new Uint8Array(randomBytes(100 + round));
    const native = channelKeys(dh, transcript, nativeHashes);
    const pure = channelKeys(dh, transcript, pureJsHashes);
    expect(bytesToHex(native.c2h)).toBe(bytesToHex(pure.c2h));
    expect(bytesToHex(native.h2c)).toBe(bytesToHex(pure.h2c));
    expect(native.c2h).toBeInstanceOf(Uint8Array);
    expect(native.c2h.length).toBe(32);
  }
});
