/**
 * `tether remote submit --attach FILE`: a file sent to the host in the chunks of
 * `attachment.put` (docs/attachments.md), each through the outbox. Its id is made from the
 * device's id and the file's name, type and digest, so the same file sent again from this
 * device (after the command was stopped, or to another task) resumes from the chunks the
 * host already has, or is not sent at all.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { sniffImageType } from '../../protocol/index.js';
import { TetherError } from '../../protocol/index.js';
import {
  attachmentIdTaken,
  type HostConnection,
  type OutgoingAttachment,
  outgoingAttachment,
  uploadAttachment,
  withRandomId,
} from '../client/index.js';
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

/** A file read for `--attach`: its bytes, the name and type the host is told, its digest. */
type LocalFile = Pick<OutgoingAttachment, 'bytes' | 'name' | 'mediaType' | 'sha256'>;

/** Reads `path` for `--attach`; a file that cannot be read is a usage error naming it. */
export function readAttachment(path: string): LocalFile {
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
  return { bytes, name, mediaType, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * Sends `file` as this device's from the first chunk the host lacks, each chunk through
 * the outbox with the command line's bounded wait; resolves with its id once the host has
 * it whole. An id the host refuses because another device began an upload under it is
 * tried once more under a random id (which resumes nothing); refused again, the command
 * stops saying so.
 */
export async function sendAttachment(
  connection: HostConnection,
  ctx: RemoteContext,
  file: LocalFile,
): Promise<string> {
  const { bytes, name, mediaType, sha256 } = file;
  const upload = (outgoing: OutgoingAttachment) =>
    uploadAttachment(connection, outgoing, {
      signal: ctx.signal,
      send: (chunk) => sendCommand(connection, ctx, 'attachment.put', chunk),
    });
  const outgoing = outgoingAttachment(bytes, name, mediaType, connection.deviceId, sha256);
  try {
    return await upload(outgoing);
  } catch (error) {
    if (!attachmentIdTaken(error)) throw error;
    ctx.err(
      `${name}: another device began an upload under its id ${outgoing.attachmentId} on ${connection.hostName}; sending it under a new id\n`,
    );
  }
  const renamed = withRandomId(outgoing);
  try {
    return await upload(renamed);
  } catch (error) {
    if (!attachmentIdTaken(error)) throw error;
    throw new TetherError(
      'invalid_request',
      `${name} was not sent: ${connection.hostName} refused its id twice (${outgoing.attachmentId}, then the random ${renamed.attachmentId}) as begun by another device (${(error as Error).message}); nothing was submitted. Run the command again; if it is refused again, check the host's paired devices (tether devices on the host)`,
      { cause: error },
    );
  }
}
