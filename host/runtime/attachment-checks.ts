/**
 * What `attachment.put` checks of a chunk before and while it is stored
 * (docs/attachments.md): the whole it declares (id, name, type, size, chunk count), its
 * bytes, an image's or a recording's first bytes against its type, the device that began
 * it, a chunk sent again against what is stored, and room on the disk.
 */
import {
  ATTACHMENT_CHUNK_BYTES,
  attachmentChunks,
  fromB64u,
  isAudioMediaType,
  isImageMediaType,
  sniffAudioType,
  sniffImageType,
  TetherError,
  type OpArgs,
} from '../../protocol/index.js';
import type { Store, StoredAttachment } from '../store/index.js';
import type { Actor, RuntimeLimits } from './types.js';

export type AttachmentLimits = Pick<
  RuntimeLimits,
  'attachmentMaxBytes' | 'runAttachmentsMaxBytes' | 'attachmentDiskReserveBytes'
>;

/** `n` bytes in words: `20 MiB`, `1.5 KiB`, `12 bytes`. */
export function formatSize(bytes: number): string {
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

export function invalid(path: string, message: string): TetherError {
  return new TetherError('invalid_request', message, { details: { issues: [{ path, message }] } });
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
export function checkDeclared(args: OpArgs<'attachment.put'>, limits: AttachmentLimits): void {
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
export function chunkBytes(args: OpArgs<'attachment.put'>): Uint8Array {
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
export function checkMediaType(args: OpArgs<'attachment.put'>, first: Uint8Array): void {
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
export function checkSameDevice(stored: StoredAttachment, by: Actor): void {
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
export function checkStoredChunk(
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
export function checkDiskRoom(
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
export function checkSameUpload(stored: StoredAttachment, args: OpArgs<'attachment.put'>): void {
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
