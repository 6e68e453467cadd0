/**
 * The phone flow in headless Chromium against the real host process: pair through the
 * link, submit, watch the answer stream, approve the command on one device while a second
 * device watches the same run, see the run finish and the session free only at
 * `session.idle`; then revoke this device from the page, which asks to confirm first.
 * Screenshots at iPhone size of the pair screen, a run waiting for approval and the runs
 * list go to test-results/screenshots.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textTurn } from '../support/scripted-model-server.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import {
  byTestId,
  pageErrors,
  pairDevice,
  submitTask,
  toolCardIds,
  visible,
} from './support/app-page.js';
import { until } from '../support/wait.js';
import {
  IPHONE,
  launchChromium,
  openDevice,
  saveScreenshot,
  type Device,
} from './support/chromium.js';
import { storeDevices, storeEvents, storeToolCalls } from './support/store-reader.js';
import { runCommand, sayThenCall, words } from './support/turns.js';

let browser: Browser;
let app: AppHost;
/** The iPhone that pairs, submits and approves. */
let phone: Device;
/** A laptop paired with the same host, watching. */
let laptop: Device;

beforeAll(async () => {
  browser = await launchChromium();
  app = await startAppHost();
  phone = await openDevice(browser, 'Test iPhone', IPHONE);
  laptop = await openDevice(browser, 'Test Laptop', { viewport: { width: 1280, height: 800 } });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
});

describe('the PWA in Chromium against the real host', () => {
  it('pairs through the link, streams, approves on one device while another watches, and frees the session at session.idle', async () => {
    await phone.page.goto(`${app.origin}/`);
    await visible(byTestId(phone.page, 'pair-screen'));
    await visible(byTestId(phone.page, 'pair-submit'));
    await saveScreenshot(phone.page, 'pair-screen');

    const phonePairing = await pairDevice(phone, app);
    expect(phonePairing.pageSas).toMatch(/^\d{6}$/);
    expect(phonePairing.pageSas).toBe(phonePairing.hostSas);
    expect(phone.page.url()).not.toContain('#pair=');
    const laptopPairing = await pairDevice(laptop, app);
    expect(laptopPairing.pageSas).toBe(laptopPairing.hostSas);
    expect(storeDevices(app.dataDir).map((device) => device.name)).toEqual([
      'Test iPhone',
      'Test Laptop',
    ]);

    app.model.push(
      sayThenCall(words(30), [runCommand('call_echo', 'echo hello-from-the-phone')], 80),
      textTurn(words(20, 'done'), { delayMs: 60 }),
    );
    const task = 'Say thirty words, then run echo';
    const runId = await submitTask(phone.page, task);

    // The answer grows on the page while it streams, before it is durable.
    const streaming = byTestId(phone.page, 'assistant-message', { streaming: 'true' });
    await visible(streaming);
    const firstLength = ((await streaming.first().textContent()) ?? '').length;
    await phone.page.waitForFunction((length) => {
      const message = document.querySelector(
        '[data-testid="assistant-message"][data-streaming="true"]',
      );
      return message !== null && (message.textContent ?? '').length > length;
    }, firstLength);
    // Typed, so the button is disabled only by the busy run, not an empty field.
    await byTestId(phone.page, 'followup-text').fill('A follow-up');
    expect(await byTestId(phone.page, 'followup-submit').isDisabled()).toBe(true);

    // The laptop opens the same run from its live runs list.
    await byTestId(laptop.page, 'run-row', { 'run-id': runId }).click();
    await visible(byTestId(laptop.page, 'run-screen', { 'run-id': runId }));

    for (const device of [phone, laptop]) {
      const card = byTestId(device.page, 'approval-card', { state: 'pending' });
      await visible(card);
      await expect
        .poll(() => byTestId(card, 'approval-command').textContent())
        .toContain('echo hello-from-the-phone');
      await visible(byTestId(card, 'approval-digest', { match: 'true' }));
      expect(await byTestId(card, 'approval-approve').isEnabled(), pageErrors(device)).toBe(true);
      await visible(byTestId(card, 'approval-reason'));
    }
    expect(await byTestId(phone.page, 'approvals-count').textContent()).toBe('1');
    const pendingMessage = byTestId(phone.page, 'assistant-message').first();
    expect(await pendingMessage.getAttribute('data-streaming')).not.toBe('true');
    await byTestId(phone.page, 'approval-approve').scrollIntoViewIfNeeded();
    await saveScreenshot(phone.page, 'run-pending-approval');

    await byTestId(phone.page, 'approval-approve').click();
    for (const device of [phone, laptop]) {
      const card = byTestId(device.page, 'approval-card', { state: 'approved' });
      await visible(card);
      await expect
        .poll(() => byTestId(card, 'approval-resolved-by').textContent())
        .toContain('approved on Test iPhone');
      const enabled = await byTestId(card, 'approval-approve').evaluateAll(
        (buttons) => buttons.filter((button) => !(button as HTMLButtonElement).disabled).length,
      );
      expect(enabled).toBe(0);
    }
    const resolved = storeEvents(app.dataDir, runId).filter(
      (event) => event.type === 'tool.approval_resolved',
    );
    expect(resolved.map((event) => event.payload['decision'])).toEqual(['approved']);

    // While the last answer streams the run is busy: no follow-up yet.
    await visible(byTestId(phone.page, 'assistant-message', { streaming: 'true' }));
    await byTestId(phone.page, 'followup-text').fill('A follow-up');
    expect(await byTestId(phone.page, 'followup-submit').isDisabled()).toBe(true);

    const idle = byTestId(phone.page, 'run-screen', {
      'run-id': runId,
      state: 'succeeded',
      'session-idle': 'true',
    });
    await visible(idle);
    const events = storeEvents(app.dataDir, runId).map((event) => event.type);
    expect(events.slice(-2)).toEqual(['run.finished', 'session.idle']);
    await until(
      'the follow-up button to be enabled',
      () => byTestId(phone.page, 'followup-submit').isEnabled(),
      (enabled) => enabled,
    );
    expect(await byTestId(phone.page, 'run-task').textContent()).toContain(task);

    const stored = storeToolCalls(app.dataDir, runId);
    expect(stored.map((call) => call.state)).toEqual(['succeeded']);
    for (const device of [phone, laptop]) {
      expect(await toolCardIds(device.page)).toEqual(stored.map((call) => call.id));
      await visible(
        byTestId(device.page, 'tool-card', { 'tool-call-id': stored[0]!.id, state: 'succeeded' }),
      );
      await visible(byTestId(device.page, 'run-screen', { 'session-idle': 'true' }));
    }
    // No pending approval left: the count reads 0 or is not shown at all.
    const counts = await byTestId(phone.page, 'approvals-count').allTextContents();
    expect(counts.filter((count) => count.trim() !== '0')).toEqual([]);

    await byTestId(phone.page, 'nav-runs').click();
    await visible(byTestId(phone.page, 'run-row', { 'run-id': runId, state: 'succeeded' }));
    await saveScreenshot(phone.page, 'runs-list');
  }, 90_000);

  it('revokes this device from the devices screen after a confirming tap: the page says so and returns to pairing', async () => {
    const phoneId = storeDevices(app.dataDir).find(
      (device) => device.name === 'Test iPhone',
    )!.deviceId;
    await byTestId(phone.page, 'nav-devices').click();
    await visible(byTestId(phone.page, 'devices-screen'));
    // The rows come with the devices.list answer, after the screen itself.
    await expect.poll(() => byTestId(phone.page, 'device-row').count()).toBe(2);
    const current = byTestId(phone.page, 'device-row', { current: 'true' });
    expect(await current.getAttribute('data-device-id')).toBe(phoneId);
    await visible(byTestId(current, 'device-last-seen'));

    // Revoking this device asks once more on the page; keeping it revokes nothing.
    await byTestId(current, 'device-revoke').click();
    await byTestId(current, 'device-revoke-cancel').click();
    await byTestId(current, 'device-revoke').click();
    await visible(byTestId(current, 'device-revoke-confirm'));
    expect(storeDevices(app.dataDir).every((device) => !device.revoked)).toBe(true);
    expect(storeEvents(app.dataDir).filter((event) => event.type === 'device.revoked')).toEqual([]);

    await byTestId(current, 'device-revoke-confirm').click();
    await visible(byTestId(phone.page, 'revoked-notice'));
    await visible(byTestId(phone.page, 'pair-screen'));
    expect(storeDevices(app.dataDir).map(({ name, revoked }) => ({ name, revoked }))).toEqual([
      { name: 'Test iPhone', revoked: true },
      { name: 'Test Laptop', revoked: false },
    ]);
    const revoked = storeEvents(app.dataDir).filter((event) => event.type === 'device.revoked');
    expect(revoked.map((event) => event.payload['deviceId'])).toEqual([phoneId]);

    // Forgotten, not just hidden: a reload still shows the pair screen.
    await phone.page.reload();
    await visible(byTestId(phone.page, 'pair-screen'));
  }, 90_000);
});
