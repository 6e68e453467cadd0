/**
 * The window between `run.finished` and `session.idle`, held open by the `run-finished`
 * fault point (docs/testing.md): the host SIGKILLs itself right after `run.finished`
 * commits. The page shows the run succeeded from the events it got, yet keeps the
 * follow-up button disabled while the host is down, because the session is free only at
 * `session.idle`. The host restarted without the fault records the missing `session.idle`
 * in recovery; the page reconnects, receives it, and only then enables the button, which
 * then starts a follow-up in the same session.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textTurn } from '../support/scripted-model-server.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, pageErrors, pairDevice, submitTask, visible } from './support/app-page.js';
import { until } from '../support/wait.js';
import { IPHONE, launchChromium, openDevice, type Device } from './support/chromium.js';
import { storeEvents, storeRuns } from './support/store-reader.js';
import { words } from './support/turns.js';

const FAULT_LINE = 'fault point run-finished reached: killing';

let browser: Browser;
let app: AppHost;
let phone: Device;
/** The fault switches; emptied before the restart, which reads them again. */
const faults: Record<string, string> = {
  TETHER_FAULTS: '1',
  TETHER_FAULT_POINT: 'run-finished',
};

beforeAll(async () => {
  browser = await launchChromium();
  app = await startAppHost({ env: faults });
  phone = await openDevice(browser, 'Idle iPhone', IPHONE);
  await pairDevice(phone, app);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
});

describe('the follow-up button between run.finished and session.idle', () => {
  it('stays disabled for a succeeded run until the session.idle that recovery records reaches the page', async () => {
    const page = phone.page;
    app.model.push(textTurn(words(12), { delayMs: 50 }));
    const runId = await submitTask(page, 'Say twelve words, then stop');
    const runScreen = byTestId(page, 'run-screen', { 'run-id': runId });
    const followup = byTestId(page, 'followup-submit');
    // Typed at once, so the button is disabled only by the session, not an empty field.
    await byTestId(page, 'followup-text').fill('And one more thing');

    await until(
      'the fault point to kill the host',
      () => app.host.output(),
      (output) => output.includes(FAULT_LINE),
    );
    const banner = byTestId(page, 'connection-banner', { status: 'reconnecting' });
    await visible(banner);
    const stored = storeEvents(app.dataDir, runId).map((event) => event.type);
    expect(stored.at(-1)).toBe('run.finished');
    expect(stored).not.toContain('session.idle');

    // Frames are handled in order before the close that made the banner say reconnecting:
    // what the page shows now is all it got from the host that died.
    const shownBeforeRestart = await runScreen.getAttribute('data-state');
    if (shownBeforeRestart === 'succeeded') {
      expect(await runScreen.getAttribute('data-session-idle')).toBe('false');
      expect(await followup.isDisabled(), pageErrors(phone)).toBe(true);
      // Still so after a failed reconnect: not a render that has yet to catch up.
      await until(
        'the banner to count a reconnect attempt',
        () => banner.textContent(),
        (text) => /reconnecting \(attempt [1-9]\d*\)/.test(text ?? ''),
      );
      expect(await runScreen.getAttribute('data-state')).toBe('succeeded');
      expect(await followup.isDisabled()).toBe(true);
    } else {
      // run.finished did not leave before the kill: the run is still active on the page.
      expect(shownBeforeRestart).toBe('running');
      expect(await followup.isDisabled()).toBe(true);
    }

    for (const name of Object.keys(faults)) delete faults[name];
    await app.host.restart();
    const recovered = storeEvents(app.dataDir, runId).map((event) => event.type);
    expect(recovered.slice(-2)).toEqual(['run.finished', 'session.idle']);
    expect(recovered.filter((type) => type === 'session.idle')).toHaveLength(1);

    await visible(
      byTestId(page, 'run-screen', { 'run-id': runId, state: 'succeeded', 'session-idle': 'true' }),
    );
    await until(
      'the follow-up button to be enabled',
      () => followup.isEnabled(),
      (enabled) => enabled,
    );
    await until(
      'the banner to leave reconnecting',
      () => byTestId(page, 'connection-banner').getAttribute('data-status'),
      (status) => status === 'live' || status === 'host-restarted',
    );

    // The session is free on the host as well: the follow-up runs in it at once.
    app.model.push(textTurn('Followed up.'));
    await byTestId(page, 'followup-text').fill('And one more thing');
    await followup.click();
    const followupId = await until(
      'the run screen of the follow-up',
      () => byTestId(page, 'run-screen').getAttribute('data-run-id'),
      (id) => id !== null && id !== runId,
    );
    await visible(
      byTestId(page, 'run-screen', {
        'run-id': followupId!,
        state: 'succeeded',
        'session-idle': 'true',
      }),
    );
    expect(storeRuns(app.dataDir).map((run) => [run.id, run.state])).toEqual([
      [runId, 'succeeded'],
      [followupId, 'succeeded'],
    ]);
  }, 90_000);
});
