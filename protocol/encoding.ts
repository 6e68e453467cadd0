/**
 * Byte encodings used on the wire (docs/protocol.md §0). Browser-safe: no Buffer.
 */
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';

export { bytesToHex, concatBytes, hexToBytes };

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** `utf8(s)`: the UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Decodes UTF-8, throwing on malformed input rather than inserting U+FFFD. */
export function fromUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** `b64u(x)`: base64url without padding. */
export function b64u(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out +=
      ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]!;
  }
  return out;
}

/**
 * Strict base64url decoding: no padding, no other alphabet, no non-zero trailing bits,
 * so every byte string has exactly one accepted encoding.
 */
export function fromB64u(text: string): Uint8Array {
  if (text.length % 4 === 1) throw new TypeError('invalid base64url length');
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let o = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const v = code < 128 ? LOOKUP[code]! : -1;
    if (v < 0) throw new TypeError('invalid base64url character');
    value = (value << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (value >> bits) & 0xff;
    }
  }
  if ((value & ((1 << bits) - 1)) !== 0) throw new TypeError('invalid base64url padding bits');
  return out;
}

/** True when `text` is canonical base64url of exactly `length` bytes. */
export function isB64uOfLength(text: string, length: number): boolean {
  try {
    return fromB64u(text).length === length;
  } catch {
    return false;
  }
}

export function u16be(n: number): Uint8Array {
  if (!Number.isInteger(n) || n < 0 || n > 0xffff) throw new RangeError(`u16 out of range: ${n}`);
  return new Uint8Array([n >>> 8, n & 0xff]);
}

function u32be(n: number): Uint8Array {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
    throw new RangeError(`u32 out of range: ${n}`);
  }
  return new Uint8Array([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
}

/** Big-endian u64 of a safe integer (counters never come near 2^53). */
export function u64be(n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`u64 out of range: ${n}`);
  const out = new Uint8Array(8);
  const high = Math.floor(n / 0x100000000);
  out.set(u32be(high), 0);
  out.set(u32be(n >>> 0), 4);
  return out;
}

/** Reads a big-endian u32 at `offset`. */
export function readU32be(bytes: Uint8Array, offset = 0): number {
  if (bytes.length < offset + 4) throw new RangeError('not enough bytes for u32');
  return (
    ((bytes[offset]! << 24) >>> 0) +
    (bytes[offset + 1]! << 16) +
    (bytes[offset + 2]! << 8) +
    bytes[offset + 3]!
  );
}

/** Constant-time comparison of two byte strings. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

export function isAllZero(bytes: Uint8Array): boolean {
  let acc = 0;
  for (const byte of bytes) acc |= byte;
  return acc === 0;
}
