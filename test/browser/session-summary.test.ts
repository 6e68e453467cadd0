/**
 * A session that outgrew a small model context (docs/sessions.md), seen in the app: the
 * run whose request needed the summary shows "Earlier conversation summarised", and the
 * summary reads as the model wrote it, with its control characters escaped.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textTurn } from '../support/scripted-model-server.js';
import { until } from '../support/wait.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, pageErrors, pairDevice, submitTask, visible } from './support/app-page.js';
import { launchChromium, openDevice, type Device } from './support/chromium.js';

/** An answer of about 2,600 tokens by the host's estimate (characters / 3.5). */
const LONG = 'word '.repeat(1800);
const SUMMARY = 'SUMMARY: the user asked twice\u001b[2J; both answers were long.';

let browser: Browser;
let app: AppHost;
let phone: Device;

beforeAll(async () => {
  browser = await launchChromium();
  app = await startAppHost({ config: { model: { contextTokens: 8000 } } });
  phone = await openDevice(browser, 'Summary phone');
  await pairDevice(phone, app);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
});

/** Sends a follow-up from the run screen once the session is free, and waits for its run. */
async function followUp(text: string): Promise<void> {
  const { page } = phone;
  await byTestId(page, 'followup-text').fill(text);
  await until(
    'the follow-up button to be enabled',
    () => byTestId(page, 'followup-submit').isEnabled(),
    (enabled) => enabled,
  );
  await byTestId(page, 'followup-submit').click();
  await byTestId(page, 'run-task').filter({ hasText: text }).waitFor();
  await visible(byTestId(page, 'run-screen', { 'session-idle': 'true' }));
}

describe('a session summarised for a small context', () => {
  it('shows the summary on the run that needed it, escaped, and on no earlier run', async () => {
    const { page } = phone;
    app.model.push(textTurn(`one ${LONG}`), textTurn(`two ${LONG}`));
    await submitTask(page, 'First question');
    await visible(byTestId(page, 'run-screen', { 'session-idle': 'true' }));
    await followUp('Second question');
    expect(await byTestId(page, 'session-summary').count()).toBe(0);

    // The third request would not fit: the host asks for a summary first, then answers.
    app.model.push(textTurn(SUMMARY), textTurn('three'));
    await followUp('Third question');
    const summary = await visible(byTestId(page, 'session-summary'));
    expect(await summary.textContent()).toContain('Earlier conversation summarised');
    await summary.locator('summary').click();
    const text = byTestId(page, 'session-summary-text');
    expect(await text.textContent()).toBe(
      'SUMMARY: the user asked twice\\x1b[2J; both answers were long.',
    );
    expect(await text.locator('.escaped').count(), pageErrors(phone)).toBe(1);
  }, 90_000);
});
