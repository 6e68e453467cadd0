/**
 * Attachments through the real host process and a paired channel (issue 28): a 12 MiB
 * file survives a channel dropped halfway and is stored once; an oversized, a wrong-digest
 * and a mislabelled one are refused with a clear message and nothing stored; a run naming
 * an attachment that does not exist, is incomplete or passes the run's bound is refused;
 * attachment.read gives back a run's attachment, chunk by chunk, to any paired device, and
 * another device's upload no run names to nobody else.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFaultHost, type FaultHost } from '../support/fault-host.js';
import {
  chunkArgs,
  newAttachmentId,
  putChunks,
  sha256Hex,
  type TestAttachment,
} from '../support/attachment-chunks.js';
import { pairDevice, RawChannel } from '../support/raw-channel.js';

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

function attachmentRows(host: FaultHost): { id: string; received: number; sha256: string }[] {
  return host.query((db) =>
    db.prepare('SELECT id, received, sha256 FROM attachments ORDER BY id').all(),
  ) as { id: string; received: number; sha256: string }[];
}

function storedFiles(host: FaultHost): string[] {
  return readdirSync(join(host.host.dataDir, 'attachments'));
}

async function refusal(
  channel: RawChannel,
  op: string,
  args: object,
): Promise<{ code: string; message: string; details?: Record<string, unknown> }> {
  const answer = await channel.request(op, args);
  if (answer.ok) throw new Error(`${op} was accepted: ${JSON.stringify(answer.result)}`);
  return answer.error;
}

function text(name: string, body: string): TestAttachment {
  return {
    attachmentId: newAttachmentId(),
    name,
    mediaType: 'text/plain',
    bytes: Buffer.from(body),
  };
}

describe('attachment uploads', { timeout: 120_000 }, () => {
  it('resumes a 12 MiB upload after the channel dropped halfway and stores it once', async () => {
    await using host = await startFaultHost();
    const file: TestAttachment = {
      attachmentId: newAttachmentId(),
      name: 'recording.bin',
      mediaType: 'application/octet-stream',
      bytes: randomBytes(12 * 1024 * 1024),
    };
    expect(await putChunks(host.channel, file, 0, 12)).toMatchObject({
      received: 12,
      total: 24,
      complete: false,
    });
    // Chunk 12 goes out and the channel drops before its answer.
    host.channel.send({ t: 'req', id: 'lost', op: 'attachment.put', args: chunkArgs(file, 12) });
    host.channel.socket.socket.terminate();

    const channel = await RawChannel.open(host.paired);
    const status = await channel.call('attachment.status', { attachmentId: file.attachmentId });
    const received = Number(status['received']);
    expect([12, 13]).toContain(received);
    expect(status).toMatchObject({ total: 24, complete: false });
    // A chunk the host has answers as stored and is not written again.
    expect(await channel.call('attachment.put', chunkArgs(file, 3))).toMatchObject({
      received,
      complete: false,
    });
    const lastCommand = randomUUID();
    await putChunks(channel, file, received, 23);
    const done = await channel.call('attachment.put', chunkArgs(file, 23, lastCommand));
    expect(done).toEqual({
      attachmentId: file.attachmentId,
      received: 24,
      total: 24,
      complete: true,
    });
    // The last chunk sent again (its answer lost): the stored answer, nothing done twice.
    expect(await channel.call('attachment.put', chunkArgs(file, 23, lastCommand))).toEqual(done);

    expect(attachmentRows(host)).toEqual([
      { id: file.attachmentId, received: 24, sha256: sha256Hex(file.bytes) },
    ]);
    expect(storedFiles(host)).toEqual([file.attachmentId]);
    const stored = readFileSync(join(host.host.dataDir, 'attachments', file.attachmentId));
    expect(stored.equals(file.bytes)).toBe(true);
    channel.socket.socket.terminate();
  });

  it('refuses an oversized, a wrong-digest and a mislabelled attachment and keeps nothing', async () => {
    await using host = await startFaultHost({
      config: { limits: { attachmentMaxBytes: 1024 * 1024 } },
    });
    const big: TestAttachment = {
      attachmentId: newAttachmentId(),
      name: 'big.bin',
      mediaType: 'application/octet-stream',
      bytes: randomBytes(1024 * 1024 + 1),
    };
    const tooLarge = await refusal(host.channel, 'attachment.put', chunkArgs(big, 0));
    expect(tooLarge.code).toBe('payload_too_large');
    expect(tooLarge.message).toBe(
      'big.bin is 1048577 bytes: this host takes attachments of at most 1048576 bytes (1 MiB) each (limits.attachmentMaxBytes in its config)',
    );

    // Two chunks, the second claiming another digest: the first chunk goes too.
    const wrong: TestAttachment = {
      attachmentId: newAttachmentId(),
      name: 'notes.bin',
      mediaType: 'application/octet-stream',
      bytes: randomBytes(600 * 1024),
      sha256: 'e'.repeat(64),
    };
    await putChunks(host.channel, wrong, 0, 1);
    expect(storedFiles(host)).toEqual([wrong.attachmentId]);
    const mismatch = await refusal(host.channel, 'attachment.put', chunkArgs(wrong, 1));
    expect(mismatch.code).toBe('digest_mismatch');
    expect(mismatch.message).toBe(
      `notes.bin arrived with sha256 ${sha256Hex(wrong.bytes)}, not the ${'e'.repeat(64)} it was sent with: it was not kept; send it again`,
    );

    const mislabelled: TestAttachment = {
      attachmentId: newAttachmentId(),
      name: 'screen.jpg',
      mediaType: 'image/jpeg',
      bytes: PNG,
    };
    const label = await refusal(host.channel, 'attachment.put', chunkArgs(mislabelled, 0));
    expect(label.code).toBe('invalid_request');
    expect(label.message).toBe(
      'screen.jpg is labelled image/jpeg but its bytes are image/png: send it with the type it has',
    );
    const notImage = await refusal(
      host.channel,
      'attachment.put',
      chunkArgs({ ...text('photo.png', 'plain words'), mediaType: 'image/png' }, 0),
    );
    expect(notImage.message).toBe(
      'photo.png is labelled image/png but its bytes are not a PNG, JPEG, GIF or WebP image: send it with the type it has',
    );

    expect(attachmentRows(host)).toEqual([]);
    expect(storedFiles(host)).toEqual([]);
    // The same image with its own type is taken.
    const png = { ...mislabelled, attachmentId: newAttachmentId(), mediaType: 'image/png' };
    expect(await putChunks(host.channel, png)).toMatchObject({ complete: true });
  });

  it('refuses a run naming an attachment that does not exist, is incomplete or passes the run bound', async () => {
    await using host = await startFaultHost({
      config: { limits: { runAttachmentsMaxBytes: 1024 * 1024 } },
    });
    const submit = (attachments: string[]) => ({
      commandId: randomUUID(),
      input: { text: 'look at these', attachments },
    });
    const missing = newAttachmentId();
    const unknown = await refusal(host.channel, 'run.submit', submit([missing]));
    expect(unknown.code).toBe('invalid_request');
    expect(unknown.message).toBe(
      `no attachment ${missing} on this host: upload it with attachment.put first`,
    );

    const half: TestAttachment = {
      attachmentId: newAttachmentId(),
      name: 'half.bin',
      mediaType: 'application/octet-stream',
      bytes: randomBytes(700 * 1024),
    };
    await putChunks(host.channel, half, 0, 1);
    const incomplete = await refusal(host.channel, 'run.submit', submit([half.attachmentId]));
    expect(incomplete.message).toBe(
      `attachment ${half.attachmentId} (half.bin) is incomplete: 1 of 2 chunks arrived`,
    );
    await putChunks(host.channel, half, 1);
    const other: TestAttachment = {
      attachmentId: newAttachmentId(),
      name: 'other.bin',
      mediaType: 'application/octet-stream',
      bytes: randomBytes(400 * 1024),
    };
    await putChunks(host.channel, other);
    const tooMuch = await refusal(
      host.channel,
      'run.submit',
      submit([half.attachmentId, other.attachmentId]),
    );
    expect(tooMuch.code).toBe('payload_too_large');
    expect(tooMuch.message).toBe(
      "the attachments come to 1.1 MiB: a run takes at most 1 MiB of them (limits.runAttachmentsMaxBytes in the host's config)",
    );
    expect(host.events().filter((event) => event.type === 'run.queued')).toEqual([]);

    const { runId } = await host.channel.call('run.submit', submit([half.attachmentId]));
    const got = await host.channel.call('run.get', { runId });
    const expected = {
      id: half.attachmentId,
      name: 'half.bin',
      mediaType: 'application/octet-stream',
      size: 700 * 1024,
      sha256: sha256Hex(half.bytes),
    };
    expect(got['attachments']).toEqual([expect.objectContaining(expected)]);
    const queued = host.events().find((event) => event.type === 'run.queued');
    expect(queued?.payload).toMatchObject({
      input: { text: 'look at these', attachments: [half.attachmentId] },
      attachments: [expected],
    });
    expect(existsSync(join(host.host.dataDir, 'attachments', half.attachmentId))).toBe(true);
  });

  it("reads back a run's attachment by chunks on any paired device, and nobody else's upload", async () => {
    await using host = await startFaultHost();
    const file: TestAttachment = {
      attachmentId: newAttachmentId(),
      name: 'screen.bin',
      mediaType: 'application/octet-stream',
      bytes: randomBytes(700 * 1024),
    };
    await putChunks(host.channel, file);
    const { host: otherPaired } = await pairDevice(await host.host.pairLink());
    const other = await RawChannel.open(otherPaired);
    try {
      // Sent by the first device and not given to a run yet: only that device reads it.
      const own = await host.channel.call('attachment.read', {
        attachmentId: file.attachmentId,
        index: 1,
      });
      expect(own).toMatchObject({ attachmentId: file.attachmentId, index: 1, total: 2 });
      const notYours = await refusal(other, 'attachment.read', {
        attachmentId: file.attachmentId,
        index: 0,
      });
      expect(notYours.code).toBe('not_found');
      expect(notYours.message).toBe(
        `no attachment ${file.attachmentId} that this device may read: only those of runs, and this device's own`,
      );
      const unknownId = newAttachmentId();
      const unknown = await refusal(other, 'attachment.read', {
        attachmentId: unknownId,
        index: 0,
      });
      expect(unknown.code).toBe('not_found');

      await host.channel.call('run.submit', {
        commandId: randomUUID(),
        input: { text: 'look', attachments: [file.attachmentId] },
      });
      // Given to a run, which every paired device sees: the other device reads it whole.
      const chunks = [];
      for (const index of [0, 1]) {
        const chunk = await other.call('attachment.read', {
          attachmentId: file.attachmentId,
          index,
        });
        expect(chunk).toMatchObject({ index, total: 2 });
        chunks.push(Buffer.from(String(chunk['data']), 'base64url'));
      }
      expect(Buffer.concat(chunks).equals(file.bytes)).toBe(true);
      const past = await refusal(other, 'attachment.read', {
        attachmentId: file.attachmentId,
        index: 2,
      });
      expect(past.code).toBe('invalid_request');
    } finally {
      other.socket.socket.terminate();
    }
  });
});
