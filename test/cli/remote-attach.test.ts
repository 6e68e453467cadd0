/**
 * `tether remote submit --attach FILE` end to end (issue 28): the built CLI, paired with
 * the real host process, sends an image, a text file and a 1.2 MiB file whose first chunk
 * the host already has (sent before by the same device under the same id), resumes that
 * one from its second chunk, and the scripted model receives the image part and the text
 * inline.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parsePairedHost } from '../../pairing/testing.js';
import { chunkArgs } from '../support/attachment-chunks.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { pairDevice, RawChannel } from '../support/raw-channel.js';
import {
  startScriptedModelServer,
  textTurn,
  userContents,
  type ScriptedModelServer,
} from '../support/scripted-model-server.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { runTether } from './run-cli.js';

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

let host: HostProcess;
let model: ScriptedModelServer;
let homeDir: TempDir;

beforeAll(async () => {
  model = await startScriptedModelServer();
  host = await startHostProcess({ model: model.baseUrl });
  homeDir = tempDir('tether-remote-attach-', { realpath: false });
});

afterAll(async () => {
  await host.dispose();
  await model.close();
  homeDir.remove();
});

/** The CLI's state file, as far as this test reads it: the host it paired with. */
const CliState = z.object({ 'paired-hosts': z.tuple([z.unknown()]) });

/** The id the CLI of device `deviceId` gives a file (remote/cli/attachment-upload.ts). */
function cliAttachmentId(deviceId: string, name: string, mediaType: string, bytes: Buffer): string {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const id = createHash('sha256')
    .update(`${deviceId}\n${name}\n${mediaType}\n${sha256}`)
    .digest('hex');
  return `att_${id.slice(0, 32)}`;
}

function attachmentPuts(): { result_json: string }[] {
  const db = new Database(join(host.dataDir, 'tether.db'), { readonly: true });
  try {
    return db.prepare("SELECT result_json FROM commands WHERE op = 'attachment.put'").all() as {
      result_json: string;
    }[];
  } finally {
    db.close();
  }
}

describe('tether remote submit --attach', { timeout: 120_000 }, () => {
  it('sends the files in chunks, resumes one the host has begun, and the model gets them', async () => {
    const home = homeDir.path;
    const state = join(home, 'remote.json');
    const remote = (...args: string[]) => runTether(['remote', ...args, '--state', state], home);
    expect((await remote('pair', await host.pairLink(), '--name', 'CLI')).code).toBe(0);

    const files = join(home, 'files');
    mkdirSync(files);
    const big = randomBytes(1200 * 1024);
    writeFileSync(join(files, 'screen.png'), PNG);
    writeFileSync(join(files, 'notes.txt'), 'It breaks when I tap twice.\n');
    writeFileSync(join(files, 'dump.bin'), big);

    // The CLI's device began dump.bin before, under the id it gives it: chunk 0 of 3.
    const stored = CliState.parse(JSON.parse(readFileSync(state, 'utf8')));
    const device = parsePairedHost(stored['paired-hosts'][0]);
    await using channel = await RawChannel.open(device);
    const dumpId = cliAttachmentId(device.deviceId, 'dump.bin', 'application/octet-stream', big);
    await channel.call(
      'attachment.put',
      chunkArgs(
        {
          attachmentId: dumpId,
          name: 'dump.bin',
          mediaType: 'application/octet-stream',
          bytes: big,
        },
        0,
      ),
    );

    model.push(textTurn('It is the double tap.'));
    const result = await remote(
      'submit',
      'why does it break?',
      '--attach',
      join(files, 'screen.png'),
      '--attach',
      join(files, 'notes.txt'),
      '--attach',
      join(files, 'dump.bin'),
      '--wait',
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('sent screen.png (image/png, 70 bytes)');
    expect(result.stderr).toContain('sent dump.bin (application/octet-stream, 1228800 bytes)');
    expect(result.stdout).toMatch(/^run run_\S+ succeeded$/m);

    const parts = userContents(model.chatBodies()[0]!)[0] as { type: string; text?: string }[];
    expect(parts.map((part) => part.type)).toEqual(['text', 'image_url']);
    expect(parts[0]!.text).toContain('It breaks when I tap twice.');
    expect(parts[0]!.text).toMatch(
      /- dump\.bin \(application\/octet-stream, 1\.2 MiB\): not shown here; it is at \S+\/run-attachments\/run_\S+\/dump\.bin/,
    );
    expect(parts[1]).toEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` },
    });
    // dump.bin: chunk 0 sent before, 1 and 2 by the CLI now; one chunk each for the
    // image and the text: five puts in all, none sent twice.
    expect(attachmentPuts()).toHaveLength(5);

    // The same files again: the host has them whole, nothing is sent again.
    model.push(textTurn('Still the double tap.'));
    const again = await remote('submit', 'and now?', '--attach', join(files, 'dump.bin'), '--wait');
    expect(again.code, again.stderr).toBe(0);
    expect(attachmentPuts()).toHaveLength(5);

    const missing = await remote('submit', 'x', '--attach', join(files, 'nothing.png'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      `--attach ${join(files, 'nothing.png')}: cannot read the file (ENOENT)`,
    );
  });

  it('sends a file under a random id once another device took its own, and the model gets it', async () => {
    const home = homeDir.path;
    const state = join(home, 'remote-taken.json');
    const remote = (...args: string[]) => runTether(['remote', ...args, '--state', state], home);
    expect((await remote('pair', await host.pairLink(), '--name', 'CLI 2')).code).toBe(0);
    const stored = CliState.parse(JSON.parse(readFileSync(state, 'utf8')));
    const cli = parsePairedHost(stored['paired-hosts'][0]);

    // Another device, knowing the CLI's device id and the file, begins it under the CLI's id.
    const text = Buffer.from('Only the second tap fails.\n');
    const path = join(home, 'taken.txt');
    writeFileSync(path, text);
    const takenId = cliAttachmentId(cli.deviceId, 'taken.txt', 'text/plain', text);
    const { host: other } = await pairDevice(await host.pairLink());
    await using otherChannel = await RawChannel.open(other);
    const begun = await otherChannel.call(
      'attachment.put',
      chunkArgs(
        { attachmentId: takenId, name: 'taken.txt', mediaType: 'text/plain', bytes: text },
        0,
      ),
    );
    expect(begun).toMatchObject({ attachmentId: takenId, complete: true });

    model.push(textTurn('The second tap.'));
    const result = await remote('submit', 'which tap?', '--attach', path, '--wait');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `taken.txt: another device began an upload under its id ${takenId} on `,
    );
    expect(result.stderr).toContain('sending it under a new id');
    expect(result.stderr).toContain('sent taken.txt (text/plain, 27 bytes)');
    const body = model.chatBodies().at(-1)!;
    expect(JSON.stringify(userContents(body))).toContain('Only the second tap fails.');

    // The other device's upload is its own still: the CLI's went under another id.
    const db = new Database(join(host.dataDir, 'tether.db'), { readonly: true });
    try {
      const rows = db
        .prepare("SELECT id, device_id AS deviceId FROM attachments WHERE name = 'taken.txt'")
        .all() as { id: string; deviceId: string }[];
      expect(rows).toHaveLength(2);
      expect(rows.find((row) => row.id === takenId)?.deviceId).toBe(other.deviceId);
      expect(rows.find((row) => row.id !== takenId)?.deviceId).toBe(cli.deviceId);
    } finally {
      db.close();
    }
  });
});
