/**
 * The composer's microphone in Chromium with its fake microphone (issue 28): on New task,
 * a second of recording shows the level and the timer, Stop uploads it, the fake
 * transcription server receives WebM audio, and its text lands in the task's text box
 * after what was typed; no run is submitted and the recording is not kept. A host without
 * a transcription endpoint gets the button's explanation instead of a recording.
 */
import type { Browser } from 'playwright-core';
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
});
