/**
 * `tether remote submit --attach FILE`: a file sent to the host in the chunks of
 * `attachment.put` (docs/attachments.md), each through the outbox. Its id is made from its
 * name, type and digest, so the same file sent again (after the command was stopped, or
 * to another task) resumes from the chunks the host already has, or is not sent at all.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import {
  ATTACHMENT_CHUNK_BYTES,
  AttachmentProgress,
  attachmentChunks,
  b64u,
  sniffImageType,
  TetherError,
} from '../../protocol/index.js';
import type { HostConnection } from '../client/index.js';
import { UsageError } from '../../common/cli/index.js';
import type { RemoteContext } from './remote-context.js';
import { sendCommand } from './send-command.js';

/** Media types by file extension; anything else is `application/octet-stream`. */
const MEDIA_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.txt': 'text/plain',
  '.log': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.pdf': 'application/pdf',
};

/** A file read for sending: its bytes, the name and type the host is told, its id. */
interface LocalAttachment {
  attachmentId: string;
  name: string;
  mediaType: string;
  bytes: Buffer;
  sha256: string;
}

/** Reads `path` for `--attach`; a file that cannot be read is a usage error naming it. */
export function readAttachment(path: string): LocalAttachment {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`--attach ${path}: cannot read the file (${code})`);
  }
  const name = basename(path);
  // An image is sent as what its bytes are, whatever its extension says.
  const mediaType =
    sniffImageType(bytes) ?? MEDIA_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const id = createHash('sha256').update(`${name}\n${mediaType}\n${sha256}`).digest('hex');
  return { attachmentId: `att_${id.slice(0, 32)}`, name, mediaType, bytes, sha256 };
}

/** How many chunks of `attachmentId` the host has (0 when it has none). */
async function receivedChunks(
  connection: HostConnection,
  ctx: RemoteContext,
  attachmentId: string,
): Promise<AttachmentProgress | null> {
  try {
    const answer = await connection.request(
      'attachment.status',
      { attachmentId },
      { signal: ctx.signal },
    );
    return AttachmentProgress.parse(answer);
  } catch (error) {
    if (error instanceof TetherError && error.code === 'not_found') return null;
    throw error;
  }
}

/**
 * Sends `file` from the first chunk the host lacks, one chunk at a time through the
 * outbox; resolves with its id once the host has it whole.
 */
export async function uploadAttachment(
  connection: HostConnection,
  ctx: RemoteContext,
  file: LocalAttachment,
): Promise<string> {
  const total = attachmentChunks(file.bytes.length);
  const status = await receivedChunks(connection, ctx, file.attachmentId);
  if (status?.complete === true) return file.attachmentId;
  for (let index = status?.received ?? 0; index < total; index++) {
    const start = index * ATTACHMENT_CHUNK_BYTES;
    const last = index === total - 1;
    const answer = await sendCommand(connection, ctx, 'attachment.put', {
      attachmentId: file.attachmentId,
      index,
      total,
      name: file.name,
      mediaType: file.mediaType,
      size: file.bytes.length,
      data: b64u(file.bytes.subarray(start, start + ATTACHMENT_CHUNK_BYTES)),
      ...(last ? { sha256: file.sha256 } : {}),
    });
    // A chunk stored before (its answer lost with a connection) may put the host ahead.
    const progress = AttachmentProgress.parse(answer);
    if (progress.complete) break;
    index = progress.received - 1;
  }
  return file.attachmentId;
}
