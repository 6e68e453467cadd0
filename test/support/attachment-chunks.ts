/**
 * An attachment cut into the chunks of `attachment.put` (docs/attachments.md), and sending
 * them over a raw channel: for tests that upload through the real host.
 */
import { createHash, randomUUID } from 'node:crypto';
import { ATTACHMENT_CHUNK_BYTES, attachmentChunks, b64u } from '../../protocol/index.js';
import type { RawChannel } from './raw-channel.js';

export interface TestAttachment {
  attachmentId: string;
  name: string;
  mediaType: string;
  bytes: Uint8Array;
  /** The digest the last chunk claims (the real one unless a test says otherwise). */
  sha256?: string;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A fresh attachment id (`att_` and 24 characters). */
export function newAttachmentId(): string {
  return `att_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

/** The args of chunk `index`, with a fresh commandId unless one is given. */
export function chunkArgs(
  attachment: TestAttachment,
  index: number,
  commandId: string = randomUUID(),
): Record<string, unknown> {
  const total = attachmentChunks(attachment.bytes.length);
  const start = index * ATTACHMENT_CHUNK_BYTES;
  const data = attachment.bytes.subarray(start, start + ATTACHMENT_CHUNK_BYTES);
  return {
    commandId,
    attachmentId: attachment.attachmentId,
    index,
    total,
    name: attachment.name,
    mediaType: attachment.mediaType,
    size: attachment.bytes.length,
    data: b64u(data),
    ...(index === total - 1 && { sha256: attachment.sha256 ?? sha256Hex(attachment.bytes) }),
  };
}

/** Sends chunks `from` … `to - 1` one after the other; returns the last answer. */
export async function putChunks(
  channel: RawChannel,
  attachment: TestAttachment,
  from = 0,
  to = attachmentChunks(attachment.bytes.length),
): Promise<Record<string, unknown>> {
  let answer: Record<string, unknown> = {};
  for (let index = from; index < to; index++) {
    answer = await channel.call('attachment.put', chunkArgs(attachment, index));
  }
  return answer;
}
