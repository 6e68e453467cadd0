/**
 * Attachments from remotes (docs/attachments.md): each chunk of `attachment.put` is a
 * command, stored once; the last is checked against the size and digest of the whole;
 * images and recordings must be what their media type says. `run.submit` and `run.continue` name complete
 * attachments, checked in their own transaction against the run's bound.
 */
import {
  ATTACHMENT_CHUNK_BYTES,
  attachmentChunks,
  b64u,
  fromB64u,
  isAudioMediaType,
  isImageMediaType,
  MAX_RUN_ATTACHMENTS,
  sniffAudioType,
  sniffImageType,
  TetherError,
  type Attachment,
  type AttachmentChunk,
  type AttachmentProgress,
  type OpArgs,
  type RunInput,
} from '../../protocol/index.js';
import type { Store, StoredAttachment } from '../store/index.js';
import type { Actor, RuntimeLimits } from './types.js';

type AttachmentLimits = Pick<
  RuntimeLimits,
  'attachmentMaxBytes' | 'runAttachmentsMaxBytes' | 'attachmentDiskReserveBytes'
>;

/** `n` bytes in words: `20 MiB`, `1.5 KiB`, `12 bytes`. */
function formatSize(bytes: number): string {
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 'bytes';
  for (const next of units) {
    if (value < 1024) break;
    value /= 1024;
    unit = next;
  }
  return unit === 'bytes' ? `${bytes} bytes` : `${Number(value.toFixed(1))} ${unit}`;
}

function invalid(path: string, message: string): TetherError {
  return new TetherError('invalid_request', message, { details: { issues: [{ path, message }] } });
}

function progressOf(attachment: StoredAttachment): AttachmentProgress {
  return {
    attachmentId: attachment.id,
    received: attachment.received,
    total: attachment.total,
    complete: attachment.completedAt !== null,
  };
}

/** The remote's id of an attachment, which names its file. */
const ATTACHMENT_ID = /^[\w-]{16,64}$/;
/**
 * A file's name as the user had it: no folders, not `.` or `..`, and nothing that breaks
 * a line or changes the direction of text where the name is shown (the model's task, a
 * screen): no control characters, line or paragraph separators, or bidi controls.
 */
const FILE_NAME = /^(?!\.\.?$)[^/\\\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}]+$/u;
/** `type/subtype`, lower case, no parameters. */
const MEDIA_TYPE = /^[a-z0-9][a-z0-9.+-]*\/[a-z0-9][a-z0-9.+-]*$/;

/** The chunk's declared whole against the host's bound and against itself. */
function checkDeclared(args: OpArgs<'attachment.put'>, limits: AttachmentLimits): void {
  if (!ATTACHMENT_ID.test(args.attachmentId)) {
    throw invalid('attachmentId', 'expected 16 to 64 of A-Z, a-z, 0-9, _ and -');
  }
  if (!FILE_NAME.test(args.name)) {
    throw invalid(
      'name',
      'expected a file name without / \\ or control, line-breaking or direction-changing characters',
    );
  }
  if (!MEDIA_TYPE.test(args.mediaType)) {
    throw invalid('mediaType', 'expected a media type: type/subtype in lower case');
  }
  if (args.size > limits.attachmentMaxBytes) {
    throw new TetherError(
      'payload_too_large',
      `${args.name} is ${args.size} bytes: this host takes attachments of at most ${limits.attachmentMaxBytes} bytes (${formatSize(limits.attachmentMaxBytes)}) each (limits.attachmentMaxBytes in its config)`,
      { details: { size: args.size, limit: limits.attachmentMaxBytes } },
    );
  }
  const total = attachmentChunks(args.size);
  if (args.total !== total) {
    throw invalid(
      'total',
      `an attachment of ${args.size} bytes travels in ${total} chunks of ${ATTACHMENT_CHUNK_BYTES} bytes, not ${args.total}`,
    );
  }
  if (args.index >= total) throw invalid('index', `expected an index below ${total}`);
}

/** The chunk's bytes: exactly a chunk's worth, the last one the rest of the size. */
function chunkBytes(args: OpArgs<'attachment.put'>): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = fromB64u(args.data);
  } catch {
    throw invalid('data', 'expected canonical base64url');
  }
  const expected =
    args.index < args.total - 1
      ? ATTACHMENT_CHUNK_BYTES
      : args.size - (args.total - 1) * ATTACHMENT_CHUNK_BYTES;
  if (bytes.length !== expected) {
    throw invalid(
      'data',
      `chunk ${args.index} of ${args.total} holds ${expected} bytes, not ${bytes.length}`,
    );
  }
  if (args.index === args.total - 1 && args.sha256 === undefined) {
    throw invalid('sha256', 'the last chunk carries the sha256 of the whole attachment');
  }
  return bytes;
}

/** An image or a recording must be what its media type says, from its first bytes. */
function checkMediaType(args: OpArgs<'attachment.put'>, first: Uint8Array): void {
  let sniffed: string | null;
  let kinds: string;
  if (isImageMediaType(args.mediaType)) {
    sniffed = sniffImageType(first);
    kinds = 'a PNG, JPEG, GIF or WebP image';
  } else if (isAudioMediaType(args.mediaType)) {
    sniffed = sniffAudioType(first);
    kinds = 'WebM, MP4, Ogg, MP3 or WAV audio';
  } else {
    return;
  }
  if (sniffed === args.mediaType) return;
  throw invalid(
    'mediaType',
    `${args.name} is labelled ${args.mediaType} but its bytes are ${sniffed ?? `not ${kinds}`}: send it with the type it has`,
  );
}

/**
 * An upload is the device's that began it: another device's chunk under its id is refused,
 * so no device finishes, replaces or extends a file another device is sending.
 */
function checkSameDevice(stored: StoredAttachment, by: Actor): void {
  if (stored.deviceId === by) return;
  throw invalid(
    'attachmentId',
    `attachment ${stored.id} was begun by another device: choose another attachmentId`,
  );
}

/**
 * A chunk the host already has, sent again (an answer lost, a resume from an older
 * `received`), must be the same bytes, and a whole's last chunk the same digest: the
 * answer "stored" then says the truth. Other bytes are refused; what is stored stays.
 */
function checkStoredChunk(
  store: Store,
  stored: StoredAttachment,
  args: OpArgs<'attachment.put'>,
  bytes: Uint8Array,
): void {
  const offset = args.index * ATTACHMENT_CHUNK_BYTES;
  const same =
    (stored.sha256 === null || args.index < stored.total - 1 || args.sha256 === stored.sha256) &&
    Buffer.from(bytes).equals(store.attachments.readChunk(stored.id, offset, bytes.length));
  if (same) return;
  throw new TetherError(
    'invalid_state',
    `chunk ${args.index} of attachment ${stored.id} (${stored.name}) is stored with other bytes: send a different file under a new attachmentId`,
    { details: { state: 'chunk_differs', received: stored.received } },
  );
}

/**
 * The rest of the upload, from this chunk on, must leave the reserve free on the disk: no
 * device fills the disk the store, its journal and the runs' outputs are written to.
 */
function checkDiskRoom(
  store: Store,
  limits: AttachmentLimits,
  args: OpArgs<'attachment.put'>,
): void {
  const rest = args.size - args.index * ATTACHMENT_CHUNK_BYTES;
  const free = store.attachments.freeBytes();
  const reserve = limits.attachmentDiskReserveBytes;
  if (free - rest >= reserve) return;
  throw new TetherError(
    'payload_too_large',
    `${args.name} was not stored: the host's disk has ${formatSize(free)} free and keeps ${formatSize(reserve)} of it free (limits.attachmentDiskReserveBytes in its config); free space on the host, then send it again`,
    { details: { size: args.size, free, reserve } },
  );
}

/** Every chunk repeats what the first said of the whole. */
function checkSameUpload(stored: StoredAttachment, args: OpArgs<'attachment.put'>): void {
  const said = { name: args.name, mediaType: args.mediaType, size: args.size, total: args.total };
  for (const [field, value] of Object.entries(said)) {
    if (stored[field as keyof typeof said] !== value) {
      throw invalid(
        field,
        `attachment ${stored.id} was started with another ${field}: a chunk repeats the first chunk's name, mediaType, size and total`,
      );
    }
  }
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
          store.attachments.setReceived(stored.id, received);
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
