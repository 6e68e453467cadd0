/**
 * The client core's chunked upload (remote/client/attachment-upload.ts, which the app and
 * `tether remote submit --attach` share) against the real host process: a 1.2 MiB file in
 * three chunks through the outbox, stored whole with its digest; sent again, it is found
 * complete and no chunk goes out.
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type HostConnection,
  outgoingAttachment,
  TetherClient,
  uploadAttachment,
} from '../../remote/client/index.js';
import { FileStorage, nodeWebSocketFactory } from '../../remote/client/node/index.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { statusOf } from './helpers.js';

let host: HostProcess;
let rootDir: TempDir;
let client: TetherClient;
let connection: HostConnection;

beforeAll(async () => {
  rootDir = tempDir('tether-client-upload-', { realpath: false });
  host = await startHostProcess();
  client = new TetherClient({
    storage: new FileStorage(join(rootDir.path, 'client.json')),
    socketFactory: nodeWebSocketFactory(),
  });
  const paired = await client.pair(await host.pairLink(), { name: 'Uploader', platform: 'node' });
  connection = await client.connect(paired.hostId);
  await statusOf(connection, 'open');
});

afterAll(async () => {
  await client.close();
  await host.dispose();
  rootDir.remove();
});

function storedPuts(attachmentId: string): number {
  const db = new Database(join(host.dataDir, 'tether.db'), { readonly: true });
  try {
    const row = db
      .prepare(
        "SELECT count(*) AS n FROM commands WHERE op = 'attachment.put' AND result_json LIKE ?",
      )
      .get(`%${attachmentId}%`) as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

it('sends a file in chunks through the outbox, and not again once the host has it', async () => {
  const bytes = new Uint8Array(randomBytes(1_200_000));
  const file = outgoingAttachment(
    bytes,
    'trace.bin',
    'application/octet-stream',
    connection.deviceId,
  );
  expect(file.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));

  const progress: [number, number][] = [];
  const id = await uploadAttachment(connection, file, {
    onProgress: (received, total) => progress.push([received, total]),
  });
  expect(id).toBe(file.attachmentId);
  expect(progress).toEqual([
    [1, 3],
    [2, 3],
    [3, 3],
  ]);
  expect(await connection.request('attachment.status', { attachmentId: id })).toMatchObject({
    received: 3,
    total: 3,
    complete: true,
  });
  expect(storedPuts(id)).toBe(3);

  // The same bytes, name and type from the same device make the same id: the host has
  // it, nothing is sent.
  const again = outgoingAttachment(
    bytes,
    'trace.bin',
    'application/octet-stream',
    connection.deviceId,
  );
  expect(again.attachmentId).toBe(id);
  await uploadAttachment(connection, again);
  expect(storedPuts(id)).toBe(3);
});
