/**
 * Attachments from remotes (docs/attachments.md): each chunk of `attachment.put` is a
 * command, stored once; the last is checked against the size and digest of the whole;
 * images and recordings must be what their media type says (the checks are in
 * attachment-checks.ts, `attachment.read` in attachment-read.ts). `run.submit` and
 * `run.continue` name complete attachments, checked in their own transaction against the
 * run's bound.
 */
import {
  ATTACHMENT_CHUNK_BYTES,
  MAX_RUN_ATTACHMENTS,
  TetherError,
  type Attachment,
  type AttachmentProgress,
  type OpArgs,
  type RunInput,
} from '../../protocol/index.js';
import type { Store, StoredAttachment } from '../store/index.js';
import {
  type AttachmentLimits,
  checkDeclared,
  checkDiskRoom,
  checkMediaType,
  checkSameDevice,
  checkSameUpload,
  checkStoredChunk,
  chunkBytes,
  formatSize,
  invalid,
} from './attachment-checks.js';
import type { Actor } from './types.js';

function progressOf(attachment: StoredAttachment): AttachmentProgress {
  return {
    attachmentId: attachment.id,
    received: attachment.received,
    total: attachment.total,
    complete: attachment.completedAt !== null,
  };
}

/**
 * Stores one chunk, once. A chunk already stored answers where the upload stands and
 * writes nothing; one past the next expected is `invalid_state` (`details.received`). The
 * last chunk completes the attachment when the whole has its size and digest; otherwise the
 * attachment is removed, so nothing of it stays.
 */
export function putAttachmentChunk(
  store: Store,
  limits: AttachmentLimits,
  args: OpArgs<'attachment.put'>,
  by: Actor,
): AttachmentProgress {
  checkDeclared(args, limits);
  const bytes = chunkBytes(args);
  try {
    return store.applyCommand(
      { commandId: args.commandId, op: 'attachment.put', args, deviceId: by },
      (tx) => {
        let stored = store.attachments.get(args.attachmentId);
        if (stored === undefined) {
          if (args.index !== 0) {
            throw new TetherError(
              'invalid_state',
              `no chunk of attachment ${args.attachmentId} is stored yet: send chunk 0 first`,
              { details: { state: 'out_of_order', received: 0 } },
            );
          }
          checkMediaType(args, bytes);
          store.attachments.insert({
            id: args.attachmentId,
            deviceId: by,
            name: args.name,
            mediaType: args.mediaType,
            size: args.size,
            total: args.total,
            createdAt: tx.at,
          });
          stored = store.attachments.get(args.attachmentId)!;
        }
        checkSameDevice(stored, by);
        checkSameUpload(stored, args);
        if (args.index < stored.received) {
          checkStoredChunk(store, stored, args, bytes);
          return progressOf(stored);
        }
        if (args.index > stored.received) {
          throw new TetherError(
            'invalid_state',
            `attachment ${stored.id} has chunks 0 to ${stored.received - 1}: send chunk ${stored.received} next`,
            { details: { state: 'out_of_order', received: stored.received } },
          );
        }
        checkDiskRoom(store, limits, args);
        store.attachments.writeChunk(stored.id, args.index * ATTACHMENT_CHUNK_BYTES, bytes);
        const received = args.index + 1;
        if (received < stored.total) {
          store.attachments.setReceived(stored.id, received, tx.at);
          return { ...progressOf(stored), received };
        }
        const sha256 = store.attachments.digestOf(stored.id, stored.size);
        if (sha256 !== args.sha256) {
          throw new TetherError(
            'digest_mismatch',
            `${stored.name} arrived with sha256 ${sha256}, not the ${args.sha256} it was sent with: it was not kept; send it again`,
            { details: { expected: args.sha256 ?? null, actual: sha256 } },
          );
        }
        store.attachments.complete(stored.id, received, sha256, tx.at);
        return { ...progressOf(stored), received, complete: true };
      },
    ).result;
  } catch (error) {
    if (error instanceof TetherError && error.code === 'digest_mismatch') {
      store.write(() => store.attachments.discard(args.attachmentId));
    }
    throw error;
  }
}

/** Where `by`'s upload stands; another device's is not found, as none would be. */
export function attachmentStatus(
  store: Store,
  attachmentId: string,
  by: Actor,
): AttachmentProgress {
  const stored = store.attachments.get(attachmentId);
  if (stored === undefined || stored.deviceId !== by) {
    throw new TetherError('not_found', `no attachment ${attachmentId} from this device`);
  }
  return progressOf(stored);
}

/** What a run shows of an attachment it was given. */
export function attachmentRecord(stored: StoredAttachment): Attachment {
  return {
    id: stored.id,
    name: stored.name,
    mediaType: stored.mediaType,
    size: stored.size,
    sha256: stored.sha256 ?? '',
    createdAt: stored.createdAt,
  };
}

/**
 * Inside a submit's transaction: the attachments `input` names, each uploaded by `by`,
 * complete and named once, within the run's bound together; recorded as given to `runId`.
 * Returns them.
 */
export function giveAttachments(
  store: Store,
  limits: AttachmentLimits,
  runId: string,
  input: RunInput,
  by: Actor,
): Attachment[] {
  const ids = input.attachments ?? [];
  if (ids.length > MAX_RUN_ATTACHMENTS) {
    throw invalid('input.attachments', `expected at most ${MAX_RUN_ATTACHMENTS} attachments`);
  }
  if (new Set(ids).size !== ids.length) {
    throw invalid('input.attachments', 'expected each attachment once');
  }
  const given = ids.map((id, index) => {
    const stored = store.attachments.get(id);
    const path = `input.attachments.${index}`;
    if (stored === undefined) {
      throw invalid(path, `no attachment ${id} on this host: upload it with attachment.put first`);
    }
    if (stored.deviceId !== by) {
      throw invalid(
        path,
        `no attachment ${id} from this device on this host: upload it with attachment.put first`,
      );
    }
    if (stored.completedAt === null) {
      throw invalid(
        path,
        `attachment ${id} (${stored.name}) is incomplete: ${stored.received} of ${stored.total} chunks arrived`,
      );
    }
    return stored;
  });
  const bytes = given.reduce((sum, stored) => sum + stored.size, 0);
  if (bytes > limits.runAttachmentsMaxBytes) {
    throw new TetherError(
      'payload_too_large',
      `the attachments come to ${formatSize(bytes)}: a run takes at most ${formatSize(limits.runAttachmentsMaxBytes)} of them (limits.runAttachmentsMaxBytes in the host's config)`,
      { details: { size: bytes, limit: limits.runAttachmentsMaxBytes } },
    );
  }
  store.attachments.linkRun(runId, ids);
  return given.map(attachmentRecord);
}
