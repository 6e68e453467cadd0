/**
 * Attachments sent from a remote (docs/attachments.md, docs/protocol.md §6.2): the chunk
 * size, the schemas of `attachment.put` and `attachment.status`, the record a run shows,
 * and the magic bytes an image's media type must match. Browser-safe.
 */
import { z } from 'zod/mini';
import { b64uString, CommandId, Millis, Sha256Hex } from './primitives.js';

/**
 * Bytes of every chunk but the last, which carries the rest: 512 KiB is 699,051 base64url
 * characters, which leaves a frame (1 MiB) about 300 KiB for the rest of the request.
 */
export const ATTACHMENT_CHUNK_BYTES = 512 * 1024;

/** Attachments one run may be given. */
export const MAX_RUN_ATTACHMENTS = 16;

/** How many chunks an attachment of `size` bytes travels in (an empty one: one chunk). */
export function attachmentChunks(size: number): number {
  return Math.max(1, Math.ceil(size / ATTACHMENT_CHUNK_BYTES));
}

/**
 * An attachment's id, made by the remote before its first chunk: 16 to 64 of
 * `A-Z a-z 0-9 _ -` (it names the host's file).
 */
export const AttachmentId = z
  .string()
  .check(z.regex(/^[A-Za-z0-9_-]{16,64}$/, 'expected 16 to 64 of A-Z, a-z, 0-9, _ and -'));

/** A file's name as the user had it: no folders, no control characters. */
const AttachmentName = z.string().check(
  z.minLength(1),
  z.maxLength(255),
  z.regex(/^[^/\\\p{Cc}]+$/u, 'expected a file name without / \\ or control characters'),
  z.refine((name) => name !== '.' && name !== '..', { error: 'expected a file name' }),
);

/** `type/subtype`, lower case, no parameters. */
const MediaType = z
  .string()
  .check(z.regex(/^[a-z0-9][a-z0-9.+-]*\/[a-z0-9][a-z0-9.+-]*$/, 'expected a media type'));

/** A size no attachment can pass whatever the host's bound (which is lower). */
const MAX_SIZE = 1024 * 1024 * 1024;

/** `attachment.put`: one chunk; every chunk repeats what the first said of the whole. */
export const AttachmentPutArgs = z.strictObject({
  commandId: CommandId,
  attachmentId: AttachmentId,
  index: z.int().check(z.nonnegative()),
  total: z.int().check(z.positive()),
  name: AttachmentName,
  mediaType: MediaType,
  size: z.int().check(z.nonnegative(), z.maximum(MAX_SIZE)),
  /** The chunk's bytes, base64url (at most {@link ATTACHMENT_CHUNK_BYTES}). */
  data: b64uString(Math.ceil((ATTACHMENT_CHUNK_BYTES * 4) / 3)),
  /** Lowercase hex SHA-256 of the whole: required on the last chunk. */
  sha256: z.optional(Sha256Hex),
});

/**
 * Where an upload stands: chunks `0 … received-1` are stored; `complete` once the last
 * was checked (size and digest) and the attachment may be named by a run.
 */
export const AttachmentProgress = z.looseObject({
  attachmentId: z.string(),
  received: z.int().check(z.nonnegative()),
  total: z.int().check(z.positive()),
  complete: z.boolean(),
});
export type AttachmentProgress = z.infer<typeof AttachmentProgress>;

/** An attachment a run was given, as `run.get` and `run.queued` show it. */
export const Attachment = z.looseObject({
  id: z.string(),
  name: z.string(),
  mediaType: z.string(),
  size: z.int().check(z.nonnegative()),
  sha256: Sha256Hex,
  createdAt: Millis,
});
export type Attachment = z.infer<typeof Attachment>;

/** Image types a model may be sent as image parts; their bytes must say the same. */
const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

export function isImageMediaType(mediaType: string): mediaType is ImageMediaType {
  return (IMAGE_MEDIA_TYPES as readonly string[]).includes(mediaType);
}

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  return prefix.every((byte, i) => bytes[at + i] === byte);
}

/** The image type the first bytes of a file say (PNG, JPEG, GIF, WebP), or null. */
export function sniffImageType(bytes: Uint8Array): ImageMediaType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38]) && [0x37, 0x39].includes(bytes[4] ?? 0)) {
    return bytes[5] === 0x61 ? 'image/gif' : null;
  }
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8))
    return 'image/webp';
  return null;
}
