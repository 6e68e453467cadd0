/**
 * `b64u(n ‖ secretbox(utf8(JSON(value)), n, Kp))`: the sealed payloads of pairing
 * (docs/protocol.md §3).
 */
import nacl from 'tweetnacl';
import { z } from 'zod/mini';
import { b64u, concatBytes, fromB64u, fromUtf8, utf8 } from '../protocol/index.js';

const NONCE_BYTES = nacl.secretbox.nonceLength;

/** Seals `value` as JSON under the pair key with the 24-byte nonce `nonce`. */
export function sealPairBox(value: object, key: Uint8Array, nonce: Uint8Array): string {
  return b64u(concatBytes(nonce, nacl.secretbox(utf8(JSON.stringify(value)), nonce, key)));
}

/** Opens a pair box and validates what it holds; `undefined` when any of that fails. */
export function openPairBox<S extends z.core.$ZodType>(
  box: string,
  key: Uint8Array,
  schema: S,
): z.output<S> | undefined {
  try {
    const bytes = fromB64u(box);
    const nonce = bytes.subarray(0, NONCE_BYTES);
    const plaintext = nacl.secretbox.open(bytes.subarray(NONCE_BYTES), nonce, key);
    if (plaintext === null) return undefined;
    const value: unknown = JSON.parse(fromUtf8(plaintext));
    const parsed = z.safeParse(schema, value);
    return parsed.success ? parsed.data : undefined;
  } catch {
    // Not base64url, shorter than a nonce, not UTF-8 or not JSON.
    return undefined;
  }
}
