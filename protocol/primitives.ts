/**
 * Small schemas shared by messages, records and events.
 */
import { z } from 'zod/mini';
import { isB64uOfLength } from './encoding.js';

/** The protocol version this code speaks. */
export const PROTOCOL_VERSION = 1;

/** Largest frame either side accepts, in bytes (docs/protocol.md §2). */
export const MAX_FRAME_BYTES = 1024 * 1024;

/** Canonical base64url of exactly `length` bytes. */
export function b64uBytes(length: number) {
  return z.string().check(
    z.refine((text) => isB64uOfLength(text, length), {
      message: `expected base64url of ${length} bytes`,
    }),
  );
}

/** Canonical base64url of any length (at most `maxChars` characters). */
export const b64uString = (maxChars: number) =>
  z.string().check(z.maxLength(maxChars), z.regex(/^[A-Za-z0-9_-]*$/, 'expected base64url'));

/** `hostId` and `deviceId`: b64u of 16 bytes (22 characters). */
export const PeerId = b64uBytes(16);

/** A command id made by a remote: 16-64 characters (docs/protocol.md §6.1). */
export const CommandId = z
  .string()
  .check(
    z.minLength(16),
    z.maxLength(64),
    z.regex(/^[\x21-\x7e]+$/, 'expected printable ASCII without spaces'),
  );

/**
 * Characters a device name may not hold: controls (C0, DEL, C1), line and paragraph
 * separators, and the bidi controls that reorder what a list shows around them.
 */
const NAME_HIDDEN = /[\p{Cc}\p{Zl}\p{Zp}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/**
 * A device's name as `device.rename` takes it (docs/protocol.md §6.2): 1 to 64 characters,
 * no spaces at either end, nothing {@link NAME_HIDDEN} matches.
 */
export const DeviceName = z.string().check(
  z.minLength(1, { error: 'expected a name of 1 to 64 characters' }),
  z.maxLength(64, { error: 'expected a name of 1 to 64 characters' }),
  z.refine((name) => name.trim() === name, { error: 'expected no spaces at either end' }),
  z.refine((name) => !NAME_HIDDEN.test(name), {
    error: 'expected no control characters, line breaks or bidi controls',
  }),
);

/** Milliseconds since the Unix epoch. */
export const Millis = z.int().check(z.nonnegative());

export const Seq = z.int().check(z.nonnegative());

/** `sha256:` + 64 lowercase hex digits. */
export const Digest = z
  .string()
  .check(z.regex(/^sha256:[0-9a-f]{64}$/, 'expected sha256:<64 hex>'));

/** Lowercase hex SHA-256 of a file's bytes. */
export const Sha256Hex = z
  .string()
  .check(z.regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits'));

/** A host-chosen opaque id (`run_…`, `tc_…`). Clients never parse it. */
export const OpaqueId = z.string().check(z.minLength(1), z.maxLength(128));

export const JsonObject = z.record(z.string(), z.unknown());
