/**
 * The approval a run waits for is never lost below the fold on a phone (390x844; issue 24):
 * a reader at the end of the run is carried along as the answer streams, so the card lands
 * in view; a reader who scrolled up keeps their place, and a "1 approval waiting ↓" pill
 * over the dock jumps to the card.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textTurn } from '../support/scripted-model-server.js';
import { until } from '../support/wait.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, pageErrors, pairDevice, submitTask, visible } from './support/app-page.js';
import { IPHONE, launchChromium, openDevice, type Device } from './support/chromium.js';
import { runCommand, sayThenCall, words } from './support/turns.js';

let browser: Browser;
let app: AppHost;
let phone: Device;

/** Whether the pending card's top is on the screen, above the run's dock. */
function cardInView(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const card = document.querySelector('[data-testid="approval-card"][data-state="pending"]');
    const dock = document.querySelector('[data-testid="run-dock"]');
    if (card === null || dock === null) return false;
    const top = card.getBoundingClientRect().top;
    return top >= 0 && top < dock.getBoundingClientRect().top;
  });
}

/**
 * The answer's height in px (0 before it shows), streaming or complete: under load the whole
 * stream can be over between two polls, and the complete message replaces the streaming one.
 */
function streamedHeight(page: Page): Promise<number> {
  return page.evaluate(() => {
    const messages = document.querySelectorAll('[data-testid="assistant-message"]');
    return messages.item(messages.length - 1)?.getBoundingClientRect().height ?? 0;
  });
}

beforeAll(async () => {
  browser = await launchChromium();
  app = await startAppHost();
  phone = await openDevice(browser, 'Pill iPhone', IPHONE);
  await pairDevice(phone, app);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
});

describe('the approval a run waits for', () => {
  it('comes into view as the answer streams while the reader stays at the end', async () => {
    const page = phone.page;
    app.model.push(
      sayThenCall(words(400, 'said'), [runCommand('call_follow', 'echo followed')], 5),
      textTurn('Done.'),
    );
    await submitTask(page, 'Say a lot, then ask');
    const card = await visible(byTestId(page, 'approval-card', { state: 'pending' }));
    // The answer above it is taller than the screen: only following brought the card here.
    const said = await byTestId(page, 'assistant-message').first().boundingBox();
    expect(said?.height ?? 0).toBeGreaterThan(844);
    await until(
      'the card to be in view',
      () => cardInView(page),
      (yes) => yes,
    );
    expect(await page.evaluate(() => scrollY), pageErrors(phone)).toBeGreaterThan(844);
    expect(await byTestId(page, 'approval-pill').count()).toBe(0);
    await byTestId(card, 'approval-approve').click();
    await visible(byTestId(page, 'run-screen', { state: 'succeeded', 'session-idle': 'true' }));
  }, 90_000);

  it('is in view when a live run is opened with its answer already long', async () => {
    const page = phone.page;
    app.model.push(
      sayThenCall(words(400, 'again'), [runCommand('call_reopen', 'echo reopened')], 0),
      textTurn('Done.'),
    );
    const runId = await submitTask(page, 'Say a lot, then ask, while I look elsewhere');
    await byTestId(page, 'nav-runs').click();
    const row = page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
    await visible(row.and(page.locator('[data-state="waiting_for_approval"]')));
    // Opened again, the whole answer is there at once: the run opens at its end.
    await row.click();
    await visible(byTestId(page, 'approval-card', { state: 'pending' }));
    await until(
      'the card to be in view',
      () => cardInView(page),
      (yes) => yes,
    );
    await byTestId(
      byTestId(page, 'approval-card', { state: 'pending' }),
      'approval-approve',
    ).click();
    await visible(byTestId(page, 'run-screen', { state: 'succeeded', 'session-idle': 'true' }));
  }, 90_000);

  it('is pointed at by a pill that jumps to it once the reader scrolled up', async () => {
    const page = phone.page;
    app.model.push(
      sayThenCall(words(600, 'long'), [runCommand('call_pill', 'echo pointed')], 10),
      textTurn('Done.'),
    );
    await submitTask(page, 'Say even more, then ask');
    await until(
      'the answer to grow past a screen',
      () => streamedHeight(page),
      (h) => h > 900,
    );
    // The reader goes back to the top to read from the start.
    await page.evaluate(() => scrollTo(0, 0));
    await visible(byTestId(page, 'approval-card', { state: 'pending' }));
    const pill = await visible(byTestId(page, 'approval-pill'));
    expect(await pill.textContent()).toBe('1 approval waiting ↓');
    // The reader's place was kept: the card is far below it.
    expect(await page.evaluate(() => scrollY)).toBe(0);
    expect(await cardInView(page)).toBe(false);
    const box = await pill.boundingBox();
    expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= 390).toBe(true);

    await pill.click();
    await until(
      'the card to be in view',
      () => cardInView(page),
      (yes) => yes,
    );
    await byTestId(page, 'approval-pill').waitFor({ state: 'detached' });
    await byTestId(
      byTestId(page, 'approval-card', { state: 'pending' }),
      'approval-approve',
    ).click();
    await visible(byTestId(page, 'run-screen', { state: 'succeeded', 'session-idle': 'true' }));
  }, 90_000);
});
