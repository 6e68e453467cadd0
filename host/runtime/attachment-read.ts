/**
 * `attachment.read` (docs/attachments.md): a complete attachment read back chunk by chunk,
 * for a remote to show it (thumbnails).
 */
import {
  ATTACHMENT_CHUNK_BYTES,
  b64u,
  TetherError,
  type AttachmentChunk,
  type OpArgs,
} from '../../protocol/index.js';
import type { Store } from '../store/index.js';
import { invalid } from './attachment-checks.js';
import type { Actor } from './types.js';

/**
 * One chunk of a complete attachment, for a remote to show it (thumbnails): one a run was
 * given (every paired device sees every run), or one `by` sent itself. Another device's
 * upload that no run names yet, like an id the host does not have, is `not_found`.
 */
export function readAttachmentChunk(
  store: Store,
  args: OpArgs<'attachment.read'>,
  by: Actor,
): AttachmentChunk {
  const stored = store.attachments.get(args.attachmentId);
  const visible =
    stored !== undefined && (stored.deviceId === by || store.attachments.givenToARun(stored.id));
  if (!visible) {
    throw new TetherError(
      'not_found',
      `no attachment ${args.attachmentId} that this device may read: only those of runs, and this device's own`,
    );
  }
  if (stored.completedAt === null) {
    throw new TetherError(
      'invalid_state',
      `attachment ${stored.id} (${stored.name}) is incomplete: ${stored.received} of ${stored.total} chunks arrived`,
      { details: { state: 'incomplete', received: stored.received } },
    );
  }
  if (args.index >= stored.total) {
    throw invalid(
      'index',
      `attachment ${stored.id} has ${stored.total} chunks: expected an index below ${stored.total}`,
    );
  }
  const offset = args.index * ATTACHMENT_CHUNK_BYTES;
  const bytes = store.attachments.readBytes(
    stored.id,
    offset,
    Math.min(ATTACHMENT_CHUNK_BYTES, stored.size - offset),
  );
  return { attachmentId: stored.id, index: args.index, total: stored.total, data: b64u(bytes) };
}
