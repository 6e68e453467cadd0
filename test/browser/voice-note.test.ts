/**
 * The composer's microphone in Chromium with its fake microphone (issue 28): on New task,
 * a second of recording shows the level and the timer, Stop uploads it, the fake
 * transcription server receives WebM audio, and its text lands in the task's text box
 * after what was typed; no run is submitted and the recording is not kept. A host without
 * a transcription endpoint gets the button's explanation instead of a recording. And the
 * issue's whole path, "photograph, say it, send": a photo (with its GPS location) attached
 * and a voice note recorded on New task, sent, and the model's request carries the image,
 * its location gone, and the transcribed words; the run shows the photo's thumbnail.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeTranscriptionServer,
  type FakeTranscriptionServer,
} from '../support/fake-transcription-server.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, openSubmitForm, pageErrors, pairDevice, visible } from './support/app-page.js';
import { IPHONE, launchChromium, openDevice, saveScreenshot } from './support/chromium.js';
import { readStore, storeRuns } from './support/store-reader.js';
import { until } from '../support/wait.js';
import { hasExif, withExifGps } from '../support/exif-jpeg.js';
import { textTurn, userContents } from '../support/scripted-model-server.js';

const SAID = 'The login button does nothing on the settings page.';

let browser: Browser;
let speech: FakeTranscriptionServer;
let app: AppHost;

beforeAll(async () => {
  browser = await launchChromium({ fakeMedia: true });
  speech = await startFakeTranscriptionServer({ defaultText: SAID });
  app = await startAppHost({
    config: { voice: { baseUrl: speech.baseUrl, model: 'whisper-test' } },
  });
}, 60_000);

/** A JPEG of `width`×`height` drawn by the page's canvas: the photo a camera took. */
async function photo(page: Page, width: number, height: number): Promise<Buffer> {
  const bytes = await page.evaluate(
    async ({ width, height }) => {
      const canvas = document.createElement('canvas');
      canvas.width = width;
      canvas.height = height;
      const context = canvas.getContext('2d')!;
      context.fillStyle = '#f4f4f4';
      context.fillRect(0, 0, width, height);
      context.fillStyle = '#c03030';
      context.fillRect(width / 4, height / 3, width / 2, height / 6);
      const blob = await new Promise<Blob | null>((resolve) =>
        canvas.toBlob(resolve, 'image/jpeg', 0.9),
      );
      return Array.from(new Uint8Array(await blob!.arrayBuffer()));
    },
    { width, height },
  );
  return Buffer.from(bytes);
}

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
  await speech?.close();
});

describe('the composer’s microphone', { timeout: 120_000 }, () => {
  it('records, has the host transcribe it, and puts the text in the box, sending no task', async () => {
    const phone = await openDevice(browser, 'Voice iPhone', IPHONE);
    await pairDevice(phone, app);
    const { page } = phone;
    await openSubmitForm(page, 'Look at this:');

    await (await visible(byTestId(page, 'voice-button'))).click();
    await visible(byTestId(page, 'voice-recording'));
    // The fake microphone beeps: the meter moves, and the timer passes a second.
    await page.waitForFunction(
      () =>
        Number(document.querySelector('[data-testid="voice-level"]')?.getAttribute('data-level')) >
        0,
    );
    await byTestId(page, 'voice-timer')
      .filter({ hasText: /^0:0[1-9]$/ })
      .waitFor();
    await saveScreenshot(page, 'voice-recording-390x844');
    await byTestId(page, 'voice-stop').click();

    await until(
      'the transcript in the text box',
      () => byTestId(page, 'submit-text').inputValue(),
      (value) => value.includes(SAID),
      { timeout: 60_000 },
    );
    expect(await byTestId(page, 'submit-text').inputValue(), pageErrors(phone)).toBe(
      `Look at this:\n${SAID}`,
    );
    await visible(byTestId(page, 'voice-button', { state: 'idle' }));

    expect(speech.requests).toHaveLength(1);
    const received = speech.requests[0]!;
    expect(received).toMatchObject({
      model: 'whisper-test',
      fileType: 'audio/webm',
      fileName: 'voice-note.webm',
    });
    // A WebM file (EBML header) of a second or more of Opus.
    expect([...received.audio.subarray(0, 4)]).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
    expect(received.audio.length).toBeGreaterThan(1000);

    // Nothing was sent to a model: no run, and the recording was not kept.
    expect(storeRuns(app.dataDir)).toEqual([]);
    expect(readStore(app.dataDir, (db) => db.prepare('SELECT id FROM attachments').all())).toEqual(
      [],
    );
    expect(phone.errors).toEqual([]);
    await phone.context.close();
  });

  it('explains how to set up an endpoint when the host has none', async () => {
    const bare = await startAppHost();
    try {
      const phone = await openDevice(browser, 'Voice iPad', IPHONE);
      await pairDevice(phone, bare);
      await openSubmitForm(phone.page, '');
      await (await visible(byTestId(phone.page, 'voice-button'))).click();
      const message = await visible(byTestId(phone.page, 'voice-message'));
      expect(await message.textContent()).toContain('tether voice set --base-url');
      expect(await byTestId(phone.page, 'voice-recording').count()).toBe(0);
      await phone.context.close();
    } finally {
      await bare.dispose();
    }
  });

  it('photograph, say it, send: the model gets the photo and the words, the run shows it', async () => {
    const phone = await openDevice(browser, 'Camera iPhone', IPHONE);
    await pairDevice(phone, app);
    const { page } = phone;
    const taken = withExifGps(await photo(page, 1200, 900));
    expect(hasExif(taken)).toBe(true);
    const runsBefore = storeRuns(app.dataDir).length;
    const requestsBefore = speech.requests.length;

    await openSubmitForm(page, '');
    await byTestId(page, 'submit-attach').setInputFiles({
      name: 'IMG_2041.JPG',
      mimeType: 'image/jpeg',
      buffer: taken,
    });
    await until(
      'the photo ready to send',
      () => byTestId(page, 'attachment-item', { ready: 'true' }).count(),
      (ready) => ready === 1,
    );

    await (await visible(byTestId(page, 'voice-button'))).click();
    await visible(byTestId(page, 'voice-recording'));
    await byTestId(page, 'voice-timer')
      .filter({ hasText: /^0:0[1-9]$/ })
      .waitFor();
    await byTestId(page, 'voice-stop').click();
    await until(
      'the transcript in the text box, to read before sending',
      () => byTestId(page, 'submit-text').inputValue(),
      (value) => value === SAID,
      { timeout: 60_000 },
    );
    expect(speech.requests).toHaveLength(requestsBefore + 1);
    // Transcribing sent nothing to a model.
    expect(storeRuns(app.dataDir)).toHaveLength(runsBefore);

    app.model.push(textTurn('The button has no handler; I will add one.'));
    await byTestId(page, 'submit-button').click();
    const screen = await visible(byTestId(page, 'run-screen', { state: 'succeeded' }));
    const runId = (await screen.getAttribute('data-run-id')) ?? '';
    expect(await byTestId(page, 'run-task').textContent()).toBe(SAID);

    const body = app.model
      .chatBodies()
      .find((candidate) => JSON.stringify(userContents(candidate)).includes(SAID));
    expect(body, 'a model request holding the transcribed words').toBeDefined();
    const parts = userContents(body!).find(Array.isArray) as
      { type: string; text?: string; image_url?: { url: string } }[] | undefined;
    expect(parts?.map((part) => part.type)).toEqual(['text', 'image_url']);
    expect(parts![0]!.text).toContain(SAID);
    const url = parts![1]!.image_url!.url;
    expect(url.startsWith('data:image/jpeg;base64,')).toBe(true);
    const sent = Buffer.from(url.slice('data:image/jpeg;base64,'.length), 'base64');
    expect(hasExif(sent)).toBe(false);

    // The run keeps the photo, not the recording, and shows the photo's thumbnail.
    const kept = readStore(app.dataDir, (db) =>
      db
        .prepare(
          'SELECT a.name, a.media_type AS mediaType FROM run_attachments r JOIN attachments a ON a.id = r.attachment_id WHERE r.run_id = ?',
        )
        .all(runId),
    );
    expect(kept).toEqual([{ name: 'IMG_2041.jpg', mediaType: 'image/jpeg' }]);
    await until(
      'the thumbnail decoded on the run screen',
      () =>
        byTestId(page, 'run-attachment-image').evaluateAll((imgs) =>
          imgs.map((img) => (img as HTMLImageElement).naturalWidth),
        ),
      (widths) => widths.length === 1 && widths[0] === 1200,
    );
    await saveScreenshot(page, 'photo-voice-run-390x844');
    expect(phone.errors, pageErrors(phone)).toEqual([]);
    await phone.context.close();
  });
});
