/**
 * Attachments sent from a remote (docs/attachments.md, docs/protocol.md §6.2): the schemas
 * of their ops' args, which the app's first load carries with every op. The chunk size and
 * the image types are in attachment-bytes.ts, where only the code sending and reading
 * files takes them from. Browser-safe.
 */
import { z } from 'zod/mini';
import { CommandId, Sha256Hex } from './primitives.js';

/**
 * An attachment's id, made by the remote before its first chunk: 16 to 64 of
 * `A-Z a-z 0-9 _ -` (it names the host's file). That, the name (no folders, no control
 * characters) and the media type (lower case `type/subtype`) are checked by the host
 * (host/runtime/attachment-commands.ts): their patterns would weigh on the app's first
 * load, which carries every op's args.
 */
export const AttachmentId = z.string().check(z.maxLength(64));

const Text255 = z.string().check(z.maxLength(255));
/** A chunk's place in its attachment, from 0. */
export const ChunkIndex = z.int().check(z.nonnegative());

/** `attachment.put`: one chunk; every chunk repeats what the first said of the whole. */
export const AttachmentPutArgs = z.strictObject({
  commandId: CommandId,
  attachmentId: AttachmentId,
  index: ChunkIndex,
  total: z.int().check(z.positive()),
  name: Text255,
  mediaType: Text255,
  /** Bytes of the whole; the host's bound (`limits.attachmentMaxBytes`) is checked first. */
  size: z.int().check(z.nonnegative()),
  /**
   * The chunk's bytes, canonical base64url: decoded and measured by the host (exactly
   * `ATTACHMENT_CHUNK_BYTES` of attachment-bytes.ts, the last chunk the rest of `size`).
   */
  data: z.string(),
  /** Lowercase hex SHA-256 of the whole: required on the last chunk. */
  sha256: z.optional(Sha256Hex),
});
