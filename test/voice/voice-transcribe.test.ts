/**
 * `voice.transcribe` through the real host process, a paired channel and the fake
 * transcription server (issue 28): without an endpoint the op says how to set one up; once
 * `tether voice set … --key-stdin` kept one, the server receives the recording's exact
 * bytes, the model, the language and the key; the text is the answer, a resent commandId
 * gets it from the command log without a second request, and the recording is gone (row
 * and file). The endpoint's 401, 429 and 500 and an unreachable endpoint are classed
 * errors with the key masked, the recording kept for a retry; a recording a run was given
 * stays with the run; a file that is not audio is refused, one labelled audio that is not
 * is refused at its first chunk.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAttachmentId, putChunks, type TestAttachment } from '../support/attachment-chunks.js';
import { startFaultHost, type FaultHost } from '../support/fault-host.js';
import {
  startFakeTranscriptionServer,
  type FakeTranscriptionServer,
} from '../support/fake-transcription-server.js';
import { textTurn } from '../support/scripted-model-server.js';
import { pairDevice, RawChannel } from '../support/raw-channel.js';

const bin = new URL('../../bin/tether.js', import.meta.url).pathname;
const KEY = 'sk-voice-kept-by-voice-set-0123456789';

let host: FaultHost;
let speech: FakeTranscriptionServer;
/** The config file the host was started with (`--config`). */
let configFile: string;

beforeAll(async () => {
  speech = await startFakeTranscriptionServer();
  host = await startFaultHost();
  configFile = join(dirname(host.host.dataDir), 'config.json');
});

afterAll(async () => {
  await host.dispose();
  await speech.close();
});

/** A recording as MediaRecorder makes one on Chromium: an EBML header, then its bytes. */
function webm(size = 40_000): TestAttachment {
  const bytes = randomBytes(size);
  Buffer.from([0x1a, 0x45, 0xdf, 0xa3]).copy(bytes);
  return { attachmentId: newAttachmentId(), name: 'voice.webm', mediaType: 'audio/webm', bytes };
}

async function refusal(channel: RawChannel, op: string, args: object) {
  const answer = await channel.request(op, args);
  if (answer.ok) throw new Error(`${op} was accepted: ${JSON.stringify(answer.result)}`);
  return answer.error;
}

function attachmentRow(id: string): unknown {
  return host.query((db) => db.prepare('SELECT id FROM attachments WHERE id = ?').get(id));
}

function voiceCli(args: string[], input = '') {
  return spawnSync(process.execPath, [bin, 'voice', ...args, '--config', configFile], {
    input,
    encoding: 'utf8',
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: dirname(host.host.dataDir),
      TETHER_DATA_DIR: host.host.dataDir,
      TETHER_KEY_STORE: 'file',
    },
  });
}

describe('voice.transcribe', { timeout: 120_000 }, () => {
  it('without an endpoint: host.info says so, and the op says how to set one up', async () => {
    const info = await host.channel.call('host.info');
    expect(info['voice']).toEqual({ configured: false });
    const recording = webm();
    await putChunks(host.channel, recording);
    const error = await refusal(host.channel, 'voice.transcribe', {
      commandId: randomUUID(),
      attachmentId: recording.attachmentId,
    });
    expect(error.code).toBe('invalid_state');
    expect(error.details).toEqual({ state: 'voice_not_configured' });
    expect(error.message).toContain('tether voice set --base-url URL --model NAME');
    expect(attachmentRow(recording.attachmentId)).toBeDefined();
  });

  it('sends the exact recording with the model, language and stored key; the text comes back once, the audio goes', async () => {
    const set = voiceCli(
      [
        'set',
        '--base-url',
        speech.baseUrl,
        '--model',
        'whisper-test',
        '--language',
        'en',
        '--key-stdin',
      ],
      `${KEY}\n`,
    );
    expect(set.status, set.stderr).toBe(0);
    expect(set.stdout + set.stderr).not.toContain(KEY);
    await host.restartClean();
    expect((await host.channel.call('host.info'))['voice']).toEqual({ configured: true });
    expect(host.host.output()).not.toContain(KEY);

    const recording = webm(700_000);
    await putChunks(host.channel, recording);
    speech.push({ text: '  Fix the login button on the settings page.\n' });
    const commandId = randomUUID();
    const args = { commandId, attachmentId: recording.attachmentId };
    expect(await host.channel.call('voice.transcribe', args)).toEqual({
      text: 'Fix the login button on the settings page.',
    });
    expect(speech.requests).toHaveLength(1);
    const received = speech.requests[0]!;
    expect(received).toMatchObject({
      model: 'whisper-test',
      language: 'en',
      responseFormat: 'json',
      fileName: 'voice.webm',
      fileType: 'audio/webm',
      authorization: `Bearer ${KEY}`,
    });
    expect(received.audio.equals(Buffer.from(recording.bytes))).toBe(true);

    // Not kept: neither the row nor the file.
    expect(attachmentRow(recording.attachmentId)).toBeUndefined();
    const files = readdirSync(join(host.host.dataDir, 'attachments'));
    expect(files).not.toContain(recording.attachmentId);

    // The same commandId again: the command log's answer, the endpoint not asked again.
    expect(await host.channel.call('voice.transcribe', args)).toEqual({
      text: 'Fix the login button on the settings page.',
    });
    expect(speech.requests).toHaveLength(1);
    // Another op under that commandId is refused as such.
    const conflict = await refusal(host.channel, 'voice.transcribe', {
      commandId,
      attachmentId: newAttachmentId(),
    });
    expect(conflict.code).toBe('command_conflict');

    // A request's language wins over the configured one.
    const german = webm();
    await putChunks(host.channel, german);
    await host.channel.call('voice.transcribe', {
      commandId: randomUUID(),
      attachmentId: german.attachmentId,
      language: 'de',
    });
    expect(speech.requests.at(-1)?.language).toBe('de');
  });

  it('classes the endpoint’s failures, masks the key, and keeps the recording for a retry', async () => {
    const recording = webm();
    await putChunks(host.channel, recording);
    const attempt = () =>
      refusal(host.channel, 'voice.transcribe', {
        commandId: randomUUID(),
        attachmentId: recording.attachmentId,
      });

    speech.push({
      status: 401,
      message: `Incorrect API key provided: ${KEY}`,
      code: 'invalid_api_key',
    });
    const auth = await attempt();
    expect(auth).toMatchObject({
      code: 'transcription_failed',
      retryable: false,
      details: { class: 'auth', status: 401 },
    });
    expect(auth.message).not.toContain(KEY);
    expect(auth.message).toContain('tether voice set --key-stdin');

    speech.push({ status: 429, message: 'Rate limit reached', type: 'rate_limit_exceeded' });
    expect(await attempt()).toMatchObject({
      code: 'transcription_failed',
      details: { class: 'rate_limit', status: 429 },
    });
    speech.push({ status: 500, message: 'The server had an error' });
    expect(await attempt()).toMatchObject({
      code: 'transcription_failed',
      details: { class: 'server', status: 500 },
    });
    expect(attachmentRow(recording.attachmentId)).toBeDefined();

    // After the failures, a retry with a new commandId needs no new upload.
    speech.push({ text: 'Third time lucky.' });
    expect(
      await host.channel.call('voice.transcribe', {
        commandId: randomUUID(),
        attachmentId: recording.attachmentId,
      }),
    ).toEqual({ text: 'Third time lucky.' });
    expect(attachmentRow(recording.attachmentId)).toBeUndefined();
  });

  it('refuses a file that is not audio, and audio whose bytes are not what it says', async () => {
    const notes: TestAttachment = {
      attachmentId: newAttachmentId(),
      name: 'notes.txt',
      mediaType: 'text/plain',
      bytes: Buffer.from('not a recording'),
    };
    await putChunks(host.channel, notes);
    const before = speech.requests.length;
    const error = await refusal(host.channel, 'voice.transcribe', {
      commandId: randomUUID(),
      attachmentId: notes.attachmentId,
    });
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('notes.txt is text/plain, not a recording');
    expect(error.details).toMatchObject({ issues: [{ path: 'attachmentId' }] });

    const unknown = await refusal(host.channel, 'voice.transcribe', {
      commandId: randomUUID(),
      attachmentId: newAttachmentId(),
    });
    expect(unknown.message).toContain('upload the recording with attachment.put first');

    // Another device's recording: not this device's to transcribe, nor to delete.
    const { host: paired } = await pairDevice(await host.host.pairLink());
    await using other = await RawChannel.open(paired);
    const theirs = webm();
    await putChunks(other, theirs);
    const notMine = await refusal(host.channel, 'voice.transcribe', {
      commandId: randomUUID(),
      attachmentId: theirs.attachmentId,
    });
    expect(notMine.code).toBe('invalid_request');
    expect(notMine.message).toContain('from this device');
    expect(attachmentRow(theirs.attachmentId)).toBeDefined();

    const fake = webm();
    Buffer.from('%PDF').copy(fake.bytes);
    const mislabelled = await refusal(host.channel, 'attachment.put', {
      commandId: randomUUID(),
      attachmentId: fake.attachmentId,
      index: 0,
      total: 1,
      name: fake.name,
      mediaType: fake.mediaType,
      size: fake.bytes.length,
      data: Buffer.from(fake.bytes).toString('base64url'),
      sha256: 'a'.repeat(64),
    });
    expect(mislabelled.code).toBe('invalid_request');
    expect(mislabelled.message).toContain(
      'voice.webm is labelled audio/webm but its bytes are not WebM, MP4, Ogg, MP3 or WAV audio',
    );
    expect(attachmentRow(fake.attachmentId)).toBeUndefined();
    expect(speech.requests).toHaveLength(before);
  });

  it('keeps a recording a run was given after transcribing it', async () => {
    const recording = webm();
    await putChunks(host.channel, recording);
    host.model.push(textTurn('Heard.'));
    await host.channel.call('run.submit', {
      commandId: randomUUID(),
      input: { text: 'Here is what I said', attachments: [recording.attachmentId] },
    });
    speech.push({ text: 'Kept with its run.' });
    expect(
      await host.channel.call('voice.transcribe', {
        commandId: randomUUID(),
        attachmentId: recording.attachmentId,
      }),
    ).toEqual({ text: 'Kept with its run.' });
    expect(attachmentRow(recording.attachmentId)).toBeDefined();
    expect(existsSync(join(host.host.dataDir, 'attachments', recording.attachmentId))).toBe(true);
  });

  it('an endpoint that does not answer is a network failure', async () => {
    const recording = webm();
    await putChunks(host.channel, recording);
    await speech.close();
    const error = await refusal(host.channel, 'voice.transcribe', {
      commandId: randomUUID(),
      attachmentId: recording.attachmentId,
    });
    expect(error).toMatchObject({ code: 'transcription_failed', details: { class: 'network' } });
    expect(error.message).toContain('tether doctor');
    expect(attachmentRow(recording.attachmentId)).toBeDefined();
  });
});
