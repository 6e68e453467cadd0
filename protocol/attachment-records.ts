/**
 * Attachment records hosts send (docs/attachments.md): where an upload stands, and what a
 * run shows of each attachment it was given. Apart from protocol/attachments.ts so the
 * app's first load does not carry them; read where they are used.
 */
import { z } from 'zod/mini';
import { Millis, Sha256Hex } from './primitives.js';

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

/** One chunk of an attachment as `attachment.read` answers it: `data` in base64url. */
export const AttachmentChunk = z.looseObject({
  attachmentId: z.string(),
  index: z.int().check(z.nonnegative()),
  total: z.int().check(z.positive()),
  data: z.string(),
});
export type AttachmentChunk = z.infer<typeof AttachmentChunk>;
