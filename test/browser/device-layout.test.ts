/**
 * Each device's layout in headless Chromium against the real host: an iPad or a laptop
 * (1180×820) shows the runs list and the open run side by side, the approvals count in
 * the tab bar on top, and takes ⌘/Ctrl+Enter, `/` and Escape; a phone (390×844) keeps
 * one column, and while an answer streams nothing it may tap moves: the run's dock (Cancel
 * and the follow-up composer) stays at the bottom; the page follows the text while the
 * reader is at its end, and keeps the reader's place once they scrolled up.
 * Screenshots of both go to test-results/screenshots.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textTurn } from '../support/scripted-model-server.js';
import { until } from '../support/wait.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, pageErrors, pairDevice, visible } from './support/app-page.js';
import {
  IPHONE,
  launchChromium,
  openDevice,
  saveScreenshot,
  type Device,
} from './support/chromium.js';
import { storeRuns } from './support/store-reader.js';
import { runCommand, sayThenCall, words } from './support/turns.js';

let browser: Browser;
let app: AppHost;
let laptop: Device;
let phone: Device;

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

async function boxOf(locator: Locator): Promise<Box> {
  const box = await locator.first().boundingBox();
  if (box === null) throw new Error('the element is not rendered');
  return box;
}

/**
 * The box to the CSS pixel: while the page follows the text, a sticky element may land a
 * fraction of a device pixel off (scroll offsets are in device pixels), which no eye sees.
 */
async function placeOf(locator: Locator): Promise<Box> {
  const { x, y, width, height } = await boxOf(locator);
  return {
    x: Math.round(x),
    y: Math.round(y),
    width: Math.round(width),
    height: Math.round(height),
  };
}

/** Resolves once the streaming answer on `page` holds at least `count` characters. */
async function streamedAtLeast(page: Page, count: number): Promise<void> {
  await page.waitForFunction((length) => {
    const message = document.querySelector(
      '[data-testid="assistant-message"][data-streaming="true"]',
    );
    return message !== null && (message.textContent ?? '').length >= length;
  }, count);
}

beforeAll(async () => {
  browser = await launchChromium();
  app = await startAppHost();
  laptop = await openDevice(browser, 'Layout Laptop', { viewport: { width: 1180, height: 820 } });
  phone = await openDevice(browser, 'Layout iPhone', IPHONE);
  await pairDevice(laptop, app);
  await pairDevice(phone, app);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
});

describe('the layout of each device', () => {
  it('on a laptop: the runs list and the open run side by side, shortcuts to send and search', async () => {
    const page = laptop.page;
    // No run open yet: the list on the left, a helpful pane on the right.
    await visible(byTestId(page, 'empty-pane'));
    await visible(byTestId(page, 'shortcuts'));

    app.model.push(
      sayThenCall(words(6), [runCommand('call_wide', 'echo side-by-side')], 20),
      textTurn(words(8, 'after'), { delayMs: 20 }),
    );
    await byTestId(page, 'nav-submit').click();
    const text = byTestId(page, 'submit-text');
    await text.fill('Sent with Ctrl+Enter');
    // The list stays beside the form.
    await visible(byTestId(page, 'runs-screen'));
    await text.press('Control+Enter');
    const screen = await visible(byTestId(page, 'run-screen'));
    await byTestId(page, 'run-task').filter({ hasText: 'Sent with Ctrl+Enter' }).waitFor();
    const runId = (await screen.getAttribute('data-run-id')) ?? '';
    expect(storeRuns(app.dataDir).map((run) => run.text)).toEqual(['Sent with Ctrl+Enter']);

    const card = await visible(byTestId(page, 'approval-card', { state: 'pending' }));
    await expect.poll(() => byTestId(page, 'approvals-count').textContent()).toBe('1');
    // The page followed the run to its card; the layout is measured from the top.
    await page.evaluate(() => scrollTo(0, 0));
    const list = await boxOf(byTestId(page, 'runs-screen'));
    const run = await boxOf(screen);
    const nav = await boxOf(byTestId(page, 'nav-approvals'));
    expect(list.x, pageErrors(laptop)).toBeLessThan(run.x);
    expect(list.x + list.width).toBeLessThanOrEqual(run.x + 1);
    expect(list.width).toBeGreaterThanOrEqual(300);
    expect(run.width).toBeGreaterThan(list.width);
    expect(run.x + run.width).toBeLessThanOrEqual(1180);
    // Side by side, not stacked: both start near the top of the window.
    expect(Math.abs(list.y - run.y)).toBeLessThan(40);
    // The approvals inbox is one tap away, in the tab bar on top.
    expect(nav.y + nav.height).toBeLessThanOrEqual(list.y + 1);
    expect(await byTestId(page, 'run-row', { 'run-id': runId }).getAttribute('aria-current')).toBe(
      'page',
    );
    await visible(byTestId(card, 'approval-approve'));
    await saveScreenshot(page, 'two-panes-1180x820');

    // ⌘/Ctrl+Enter goes through the form's button: while the run is busy it sends nothing.
    const followup = byTestId(page, 'followup-text');
    await followup.fill('Too early');
    expect(await byTestId(page, 'followup-submit').isDisabled()).toBe(true);
    await followup.press('Control+Enter');
    await followup.press('Meta+Enter');
    expect(await followup.inputValue()).toBe('Too early');

    await byTestId(card, 'approval-approve').click();
    await visible(byTestId(page, 'run-screen', { 'run-id': runId, 'session-idle': 'true' }));
    await until(
      'the follow-up button to be enabled',
      () => byTestId(page, 'followup-submit').isEnabled(),
      (enabled) => enabled,
    );
    app.model.push(textTurn('A follow-up answer.'));
    await followup.fill('Sent with Meta+Enter');
    await followup.press('Meta+Enter');
    await byTestId(page, 'run-task').filter({ hasText: 'Sent with Meta+Enter' }).waitFor();
    expect(storeRuns(app.dataDir).map((stored) => stored.text)).toEqual([
      'Sent with Ctrl+Enter',
      'Sent with Meta+Enter',
    ]);
    await visible(byTestId(page, 'run-screen', { state: 'succeeded', 'session-idle': 'true' }));

    // `/` focuses the search box (the runs list's, marked data-search-input); typed in
    // another field it is just a character; Escape leaves the box.
    await visible(byTestId(page, 'run-search'));
    await followup.fill('');
    await followup.press('/');
    expect(await followup.inputValue()).toBe('/');
    await followup.fill('');
    await followup.evaluate((element) => (element as HTMLElement).blur());
    await page.keyboard.press('/');
    const focused = () =>
      page.evaluate(() => document.activeElement?.hasAttribute('data-search-input') ?? false);
    expect(await focused()).toBe(true);
    // The `/` that focused it was not typed into it.
    expect(
      await page.evaluate(
        () => (document.querySelector('[data-search-input]') as HTMLInputElement).value,
      ),
    ).toBe('');
    await page.keyboard.press('Escape');
    expect(await focused()).toBe(false);

    // Back to the runs route: the run pane gives way to the empty pane, the list stays.
    await byTestId(page, 'nav-runs').click();
    await visible(byTestId(page, 'empty-pane'));
    await visible(byTestId(page, 'runs-screen'));
    expect(await byTestId(page, 'run-screen').count()).toBe(0);
  }, 90_000);

  it('on a phone: one column, and the buttons in reach stay put while the answer streams', async () => {
    const page = phone.page;
    await page.goto(`${app.origin}/#/runs`);
    await visible(byTestId(page, 'runs-screen'));
    expect(await byTestId(page, 'two-panes').count()).toBe(0);
    expect(await byTestId(page, 'empty-pane').count()).toBe(0);
    const list = await boxOf(byTestId(page, 'runs-screen'));
    expect(list.width).toBeGreaterThan(380);
    const tabs = await boxOf(byTestId(page, 'nav-runs'));
    expect(tabs.y + tabs.height).toBeGreaterThan(844 - 70);
    await saveScreenshot(page, 'phone-runs-390x844');

    app.model.push(
      sayThenCall(words(4), [runCommand('call_phone', 'echo thumb')], 20),
      textTurn(words(900, 'streamed'), { delayMs: 15 }),
    );
    await byTestId(page, 'nav-submit').click();
    await byTestId(page, 'submit-text').fill('Stream a long answer');
    await byTestId(page, 'submit-button').click();
    await visible(byTestId(page, 'run-screen'));
    expect(await byTestId(page, 'runs-screen').count()).toBe(0);
    const card = await visible(byTestId(page, 'approval-card', { state: 'pending' }));
    const cancel = byTestId(page, 'run-cancel');
    const beforeApproval = await placeOf(cancel);
    await byTestId(card, 'approval-approve').click();
    await visible(byTestId(page, 'approval-card', { state: 'approved' }));

    await streamedAtLeast(page, 40);
    const message = byTestId(page, 'assistant-message', { streaming: 'true' });
    const early = {
      cancel: await placeOf(cancel),
      send: await placeOf(byTestId(page, 'followup-submit')),
      message: await boxOf(message),
      scrollY: await page.evaluate(() => scrollY),
    };
    await streamedAtLeast(page, 1_800);
    const late = {
      cancel: await placeOf(cancel),
      send: await placeOf(byTestId(page, 'followup-submit')),
      message: await boxOf(message),
      scrollY: await page.evaluate(() => scrollY),
    };
    // The text grew by more than a screen, and nothing the thumb may reach moved.
    expect(late.message.height - early.message.height).toBeGreaterThan(844);
    expect(late.cancel, pageErrors(phone)).toEqual(early.cancel);
    expect(late.cancel).toEqual(beforeApproval);
    expect(late.send).toEqual(early.send);
    // The dock sits just above the tab bar, inside the screen.
    expect(late.cancel.y + late.cancel.height).toBeLessThan(tabs.y);
    // The reader was at the end: the page followed the text, whose end is on the screen.
    expect(late.scrollY).toBeGreaterThan(early.scrollY + 844);
    expect(late.message.y + late.message.height).toBeLessThanOrEqual(844);
    await saveScreenshot(page, 'phone-streaming-390x844');

    // Scrolled up to read, the reader's place is kept as the text goes on.
    const place = late.scrollY - 400;
    await page.evaluate((y) => scrollTo(0, y), place);
    const scrolled = await placeOf(cancel);
    await streamedAtLeast(page, 2_400);
    expect(await page.evaluate(() => scrollY)).toBe(place);
    expect(await placeOf(cancel)).toEqual(scrolled);
    expect(scrolled).toEqual(early.cancel);
    await visible(byTestId(page, 'run-screen', { state: 'succeeded', 'session-idle': 'true' }));
  }, 90_000);
});
