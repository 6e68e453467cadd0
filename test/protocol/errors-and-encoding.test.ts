import { describe, expect, it } from 'vitest';
import {
  CloseCode,
  ERROR_CODES,
  TetherError,
  b64u,
  fromB64u,
  u64be,
} from '../../protocol/index.js';
import { canonicalJson } from '../../protocol/testing.js';

describe('error table', () => {
  it('maps handshake errors to the close codes of docs/protocol.md §2', () => {
    expect(ERROR_CODES.pair_failed.close).toBe(4409);
    expect(ERROR_CODES.unauthorized.close).toBe(4401);
    expect(ERROR_CODES.device_revoked.close).toBe(4403);
    expect(ERROR_CODES.protocol_error.close).toBe(4400);
    expect(ERROR_CODES.unsupported_version.close).toBe(4426);
    expect(ERROR_CODES.rate_limited.close).toBe(4429);
    expect(ERROR_CODES.handshake_timeout.close).toBe(CloseCode.handshakeTimeout);
  });

  it('turns an unknown throw into internal and keeps the cause off the wire', () => {
    const cause = new Error('disk on fire at /secret/path');
    const error = TetherError.from(cause);
    expect(error.code).toBe('internal');
    expect(error.cause).toBe(cause);
    expect(JSON.stringify(error.toWire())).not.toContain('secret');
    expect(error.httpStatus).toBe(500);
  });

  it('says persistence_failed is retryable and answers 503', () => {
    const error = new TetherError('persistence_failed', 'the store cannot commit');
    expect(error.toWire()).toEqual({
      code: 'persistence_failed',
      message: 'the store cannot commit',
      retryable: true,
    });
    expect(error.httpStatus).toBe(503);
  });
});

describe('encodings', () => {
  it('round-trips base64url of every length and rejects non-canonical text', () => {
    for (let length = 0; length < 70; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 37 + length) & 0xff);
      expect(fromB64u(b64u(bytes))).toEqual(bytes);
    }
    expect(() => fromB64u('AB==')).toThrow();
    expect(() => fromB64u('A+/')).toThrow();
    expect(() => fromB64u('AB')).toThrow(/padding bits/);
    expect(() => fromB64u('A')).toThrow(/length/);
  });

  it('writes u64 big-endian beyond 32 bits', () => {
    expect(Array.from(u64be(258))).toEqual([0, 0, 0, 0, 0, 0, 1, 2]);
    expect(Array.from(u64be(2 ** 40 + 1))).toEqual([0, 0, 1, 0, 0, 0, 0, 1]);
  });

  it('refuses values JSON cannot carry instead of dropping them', () => {
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(/non-finite/);
    expect(() => canonicalJson({ a: 1n })).toThrow(/bigint/);
    expect(() => canonicalJson(new Date(0))).toThrow(/plain objects/);
    expect(canonicalJson({ b: undefined, a: -0 })).toBe('{"a":0}');
  });
});
