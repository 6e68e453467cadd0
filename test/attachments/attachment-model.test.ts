/**
 * What a run's attachments become for the model, through the real host process (issue
 * 28): the scripted model receives the task's text with the small text file inline and
 * the image as an `image_url` part, exactly; the larger file is read from the run's
 * read-only attachments folder with `read_file`, and a write there is refused; a provider
 * that refuses images fails the run with `unsupported_input`, without a retry.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startFaultHost, type FaultHost } from '../support/fault-host.js';
import { newAttachmentId, putChunks, type TestAttachment } from '../support/attachment-chunks.js';
import {
  imagesRefusedReply,
  textTurn,
  toolCallTurn,
  userContents,
  type ChatBody,
} from '../support/scripted-model-server.js';
import { until } from '../support/wait.js';

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** 40 KiB of log lines, too large to go inline, with one line the model must find. */
const LOG = Array.from({ length: 1000 }, (_, i) =>
  i === 100 ? 'line 100: the crash is here' : `line ${i}: all fine so far`,
)
  .join('\n')
  .padEnd(40 * 1024, '.');

/** The first 16 hex digits of the notes' SHA-256, which mark the lines around them. */
const NOTES_MARK = createHash('sha256').update('Steps:\n1. tap\n').digest('hex').slice(0, 16);

async function upload(host: FaultHost, name: string, mediaType: string, bytes: Uint8Array) {
  const attachment: TestAttachment = { attachmentId: newAttachmentId(), name, mediaType, bytes };
  await putChunks(host.channel, attachment);
  return attachment.attachmentId;
}

function finished(host: FaultHost, runId: string): Promise<Record<string, unknown>> {
  return until(`run.finished of ${runId}`, () => {
    const event = host.events().find((e) => e.type === 'run.finished' && e.runId === runId);
    return event?.payload;
  });
}

/** The path the host named for `name` in the task it sent. */
function pathIn(body: ChatBody, name: string): string {
  const parts = userContents(body)[0] as { type: string; text?: string }[];
  const match = new RegExp(`${name} .*: not shown here; it is at (\\S+) \\(read-only`).exec(
    parts[0]?.text ?? '',
  );
  if (match?.[1] === undefined) throw new Error(`no path for ${name} in ${JSON.stringify(parts)}`);
  return match[1];
}

describe('attachments for the model', { timeout: 120_000 }, () => {
  it('sends the image as a part and the small text inline, and lets read_file read the rest, never write it', async () => {
    await using host = await startFaultHost();
    const image = await upload(host, 'screen.png', 'image/png', PNG);
    const notes = await upload(host, 'notes.txt', 'text/plain', Buffer.from('Steps:\n1. tap\n'));
    const log = await upload(host, 'app.log', 'text/plain', Buffer.from(LOG));
    let logPath = '';
    host.model.push((body) => {
      logPath = pathIn(body, 'app.log');
      return toolCallTurn([
        { id: 'call_read', name: 'read_file', arguments: JSON.stringify({ path: logPath }) },
        {
          id: 'call_write',
          name: 'write_file',
          arguments: JSON.stringify({
            path: logPath,
            content: 'gone',
            expectedSha256: createHash('sha256').update(LOG).digest('hex'),
          }),
        },
      ]);
    }, textTurn('The crash is on line 100.'));
    const submitted = await host.channel.call('run.submit', {
      commandId: randomUUID(),
      input: { text: 'fix this', attachments: [image, notes, log] },
    });
    const runId = String(submitted['runId']);
    expect(await finished(host, runId)).toMatchObject({ state: 'succeeded' });

    const [first] = host.model.chatBodies();
    expect(userContents(first!)).toEqual([
      [
        {
          type: 'text',
          text: [
            'fix this',
            '',
            'Attached to this task by the user:',
            '- screen.png (image/png, 70 bytes): image 1 after this text.',
            `- notes.txt (text/plain, 14 bytes), its text between the lines marked ${NOTES_MARK}:`,
            `----- notes.txt ${NOTES_MARK} -----`,
            'Steps:\n1. tap\n',
            `----- end of notes.txt ${NOTES_MARK} -----`,
            `- app.log (text/plain, 40.0 KiB): not shown here; it is at ${logPath} (read-only, outside the workspace): read it with read_file.`,
          ].join('\n'),
        },
        {
          type: 'image_url',
          image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` },
        },
      ],
    ]);
    expect(logPath).toBe(`${host.host.dataDir}/run-attachments/${runId}/app.log`);

    const calls = host.query((db) =>
      db
        .prepare(
          'SELECT name, state, model_content FROM tool_calls WHERE run_id = ? ORDER BY position',
        )
        .all(runId),
    ) as { name: string; state: string; model_content: string }[];
    expect(calls.map((call) => [call.name, call.state])).toEqual([
      ['read_file', 'succeeded'],
      ['write_file', 'failed'],
    ]);
    expect(calls[0]!.model_content).toContain('line 100: the crash is here');
    expect(calls[1]!.model_content).toContain(
      'is a file the user attached: attachments are read-only',
    );
    expect(readFileSync(logPath, 'utf8')).toBe(LOG);
  });

  it('fails the run with unsupported_input when the provider refuses images, without a retry', async () => {
    await using host = await startFaultHost();
    const image = await upload(host, 'screen.png', 'image/png', PNG);
    host.model.push(imagesRefusedReply());
    const submitted = await host.channel.call('run.submit', {
      commandId: randomUUID(),
      input: { text: 'what is wrong here?', attachments: [image] },
    });
    const runId = String(submitted['runId']);
    const end = await finished(host, runId);
    expect(end).toMatchObject({ state: 'failed', error: { code: 'unsupported_input' } });
    expect(String((end['error'] as { message: string }).message)).toMatch(
      /^the model does not take images: 400 Failed to deserialize/,
    );
    expect(host.model.chatBodies()).toHaveLength(1);
    expect(host.events().some((e) => e.type === 'model.retry' && e.runId === runId)).toBe(false);
  });
});
