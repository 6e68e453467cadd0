/**
 * `JCS(v)` (RFC 8785 canonical JSON) and `digest(v)` (docs/protocol.md §0).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8 } from './encoding.js';

/**
 * RFC 8785 canonical JSON: object keys sorted by UTF-16 code units, no whitespace,
 * numbers in ECMAScript form. Throws on values JSON cannot carry (non-finite numbers,
 * bigint, functions, symbols) instead of silently dropping them.
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`JCS: non-finite number ${value}`);
      // ECMAScript Number::toString is exactly the JCS number form; -0 serialises as 0.
      return JSON.stringify(value);
    case 'string':
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      throw new TypeError(`JCS: cannot serialise a ${typeof value}`);
  }
  if (Array.isArray(value)) {
    return (
      '[' + value.map((item) => canonicalJson(item === undefined ? null : item)).join(',') + ']'
    );
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    throw new TypeError('JCS: only plain objects and arrays can be serialised');
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return (
    '{' + keys.map((key) => JSON.stringify(key) + ':' + canonicalJson(record[key])).join(',') + '}'
  );
}

/** `"sha256:" + hex(SHA256(utf8(JCS(v))))`. */
export function digest(value: unknown): string {
  return 'sha256:' + bytesToHex(sha256(utf8(canonicalJson(value))));
}
