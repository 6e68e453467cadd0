/**
 * A file sent to a host in the chunks of `attachment.put` (docs/attachments.md), each
 * through the durable outbox, from the first chunk the host lacks (`attachment.status`).
 * The app's attachments and recordings and `tether remote submit --attach` all send with it.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { secureRandomBytes } from '../../pairing/index.js';
import {
  ATTACHMENT_CHUNK_BYTES,
  AttachmentProgress,
  attachmentChunks,
  b64u,
  bytesToHex,
  type OpArgs,
  type OpResult,
  TetherError,
  utf8,
} from '../../protocol/index.js';
import type { HostConnection } from './host-connection.js';
import type { CommandArgs } from './outbox.js';

/** A file ready to send: its bytes, the name and type the host is told, its id. */
export interface OutgoingAttachment {
  attachmentId: string;
  name: string;
  mediaType: string;
  bytes: Uint8Array;
  /** Lowercase hex SHA-256 of `bytes`. */
  sha256: string;
}

/**
 * `bytes` as an attachment of device `deviceId` whose id is made from the device's id and
 * the file's name, type and SHA-256: the same file sent again from this device (after a
 * reload, or to another task) resumes or is not sent at all. The host keeps an upload to
 * the device that began it, so another device's id for the same file must differ.
 * `digest` is the file's SHA-256 when the caller has it (a Node caller, natively).
 */
export function outgoingAttachment(
  bytes: Uint8Array,
  name: string,
  mediaType: string,
  deviceId: string,
  digest: string = bytesToHex(sha256(bytes)),
): OutgoingAttachment {
  const id = bytesToHex(sha256(utf8(`${deviceId}\n${name}\n${mediaType}\n${digest}`)));
  return { attachmentId: `att_${id.slice(0, 32)}`, name, mediaType, bytes, sha256: digest };
}

/**
 * `file` under a fresh random id, for when the host refused its own: another device began
 * an upload under that id (its chunks are refused, never swapped for this device's).
 */
export function withRandomId(file: OutgoingAttachment): OutgoingAttachment {
  const random = bytesToHex(secureRandomBytes(16));
  return { ...file, attachmentId: `att_${random}` };
}

/**
 * Whether `error` is the host's refusal of an attachment's id: another device began an
 * upload under it (`invalid_request` naming `attachmentId`, docs/attachments.md).
 */
export function attachmentIdTaken(error: unknown): boolean {
  if (!(error instanceof TetherError) || error.code !== 'invalid_request') return false;
  const issues = error.details?.['issues'];
  return (
    Array.isArray(issues) &&
    issues.some(
      (issue: unknown) =>
        typeof issue === 'object' &&
        issue !== null &&
        (issue as { path?: unknown }).path === 'attachmentId',
    )
  );
}

/** How `uploadAttachment` sends a chunk: the connection's outbox, or the caller's own. */
type SendChunk = (args: CommandArgs<'attachment.put'>) => Promise<OpResult<'attachment.put'>>;

export interface UploadOptions {
  signal?: AbortSignal;
  /** Sends one chunk; default: `connection.submit` (the outbox), with `signal`. */
  send?: SendChunk;
  /** Called after each chunk the host stored, with the chunks it has of `total`. */
  onProgress?: (received: number, total: number) => void;
}

/** Where the host stands with `attachmentId`, or null when it has none of it. */
async function hostProgress(
  connection: HostConnection,
  attachmentId: string,
  signal: AbortSignal | undefined,
): Promise<AttachmentProgress | null> {
  try {
    const answer = await connection.request(
      'attachment.status',
      { attachmentId },
      signal === undefined ? {} : { signal },
    );
    return AttachmentProgress.parse(answer);
  } catch (error) {
    if (error instanceof TetherError && error.code === 'not_found') return null;
    throw error;
  }
}

/**
 * Sends `file` from the first chunk the host lacks, one chunk at a time; resolves with its
 * id once the host has it whole. Rejects with the host's error (a file past its bound, an
 * image that is not what its type says), nothing of it then kept by the host.
 */
export async function uploadAttachment(
  connection: HostConnection,
  file: OutgoingAttachment,
  options: UploadOptions = {},
): Promise<string> {
  const { signal, onProgress } = options;
  const send: SendChunk =
    options.send ??
    ((args) => connection.submit('attachment.put', args, signal === undefined ? {} : { signal }));
  const total = attachmentChunks(file.bytes.length);
  const status = await hostProgress(connection, file.attachmentId, signal);
  if (status?.complete === true) {
    onProgress?.(total, total);
    return file.attachmentId;
  }
  for (let index = status?.received ?? 0; index < total; index++) {
    const start = index * ATTACHMENT_CHUNK_BYTES;
    const chunk: Omit<OpArgs<'attachment.put'>, 'commandId'> = {
      attachmentId: file.attachmentId,
      index,
      total,
      name: file.name,
      mediaType: file.mediaType,
      size: file.bytes.length,
      data: b64u(file.bytes.subarray(start, start + ATTACHMENT_CHUNK_BYTES)),
      ...(index === total - 1 ? { sha256: file.sha256 } : {}),
    };
    // A chunk stored before (its answer lost with a connection) may put the host ahead.
    const progress = AttachmentProgress.parse(await send(chunk));
    onProgress?.(progress.received, total);
    if (progress.complete) break;
    index = progress.received - 1;
  }
  return file.attachmentId;
}
