/**
 * Issue 28: `tether remote submit --attach` whose file id the host refuses as another
 * device's tries once more under a random id, and when that is refused too it stops with
 * words saying what happened and what to do. The host is a fake connection that refuses
 * every chunk as the real host does (host/runtime/attachment-commands.ts): a real host
 * never refuses a fresh random id, so only a fake reaches the second refusal.
 */
import { describe, expect, it } from 'vitest';
import { TetherError } from '../../protocol/index.js';
import type { HostConnection } from '../../remote/client/index.js';
import { readAttachment, sendAttachment } from '../../remote/cli/attachment-upload.js';
import type { RemoteContext } from '../../remote/cli/remote-context.js';
import { tempDir } from '../support/temp-dir.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A host that has no upload of this device's and refuses every chunk's id as taken. */
function refusingHost() {
  const refusedIds: string[] = [];
  const connection = {
    deviceId: 'dev_cli',
    hostName: 'Studio',
    request: () => Promise.reject(new TetherError('not_found', 'no attachment from this device')),
    submit: (_op: string, args: { attachmentId: string }) => {
      refusedIds.push(args.attachmentId);
      const message = `attachment ${args.attachmentId} was begun by another device: choose another attachmentId`;
      return Promise.reject(
        new TetherError('invalid_request', message, {
          details: { issues: [{ path: 'attachmentId', message }] },
        }),
      );
    },
  };
  return { connection: connection as unknown as HostConnection, refusedIds };
}

function context() {
  let err = '';
  const ctx = {
    err: (text: string) => (err += text),
    out: () => undefined,
    signal: new AbortController().signal,
  } as unknown as RemoteContext;
  return { ctx, err: () => err };
}

describe('an attachment id taken by another device', () => {
  it('is tried once under a random id, then refused in words naming both ids', async () => {
    using dir = tempDir('tether-id-taken-');
    const path = join(dir.path, 'notes.txt');
    writeFileSync(path, 'tap twice\n');
    const { connection, refusedIds } = refusingHost();
    const { ctx, err } = context();

    const sent = sendAttachment(connection, ctx, readAttachment(path));
    const error = await sent.then(
      () => undefined,
      (reason: unknown) => reason,
    );

    expect(refusedIds).toHaveLength(2);
    const [own, random] = refusedIds as [string, string];
    expect(own).toMatch(/^att_[0-9a-f]{32}$/);
    expect(random).toMatch(/^att_[0-9a-f]{32}$/);
    expect(random).not.toBe(own);
    expect(err()).toBe(
      `notes.txt: another device began an upload under its id ${own} on Studio; sending it under a new id\n`,
    );
    expect(error).toBeInstanceOf(TetherError);
    expect((error as TetherError).message).toContain(
      `notes.txt was not sent: Studio refused its id twice (${own}, then the random ${random}) as begun by another device`,
    );
    expect((error as TetherError).message).toContain(
      'nothing was submitted. Run the command again',
    );
  });

  it('is not retried when the host refuses the file for another reason', async () => {
    using dir = tempDir('tether-id-taken-');
    const path = join(dir.path, 'big.bin');
    writeFileSync(path, 'x');
    const puts: string[] = [];
    const connection = {
      deviceId: 'dev_cli',
      hostName: 'Studio',
      request: () => Promise.reject(new TetherError('not_found', 'none')),
      submit: (_op: string, args: { attachmentId: string }) => {
        puts.push(args.attachmentId);
        return Promise.reject(new TetherError('payload_too_large', 'big.bin is too large'));
      },
    } as unknown as HostConnection;
    const { ctx, err } = context();

    await expect(sendAttachment(connection, ctx, readAttachment(path))).rejects.toThrow(
      'big.bin is too large',
    );
    expect(puts).toHaveLength(1);
    expect(err()).toBe('');
  });
});
