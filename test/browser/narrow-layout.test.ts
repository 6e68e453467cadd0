/**
 * Issue 24, "the app never strands its user", at iPhone size (390×844) in Chromium against
 * the real host, measured on the page's boxes:
 * - a write's approval card: a diff line longer than the screen scrolls inside the diff,
 *   never off the page, and its end can be reached; "Exact input" has a visible mark;
 * - once answered, the card says what was answered, on which device and when;
 * - the follow-up's placeholder fits its field, and Send is disabled (and looks it) while
 *   the field is empty;
 * - a rule with a long path reads as a command line, and its words and origin never run
 *   under Remove, nor under "Remove rule" and "Keep";
 * - the Approvals tab lists what waits before, and apart from, a few answered ones;
 * - this device renamed from the Devices screen, stored by the host.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { until } from '../support/wait.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, pageErrors, pairDevice, submitTask, visible } from './support/app-page.js';
import {
  IPHONE,
  launchChromium,
  openDevice,
  saveScreenshot,
  type Device,
} from './support/chromium.js';
import { readStore } from './support/store-reader.js';
import { runCommand } from './support/turns.js';

const WIDTH = 390;
const LONG_DIR = 'docs/architecture-decisions-for-the-payment-service';
const LONG_FILE = `${LONG_DIR}/2026-11-30-how-we-retry-failed-webhooks.md`;
const LONG_LINE = `const longest = '${'x'.repeat(240)}'; // the end of the line`;

let browser: Browser;
let app: AppHost;
let phone: Device;

beforeAll(async () => {
  browser = await launchChromium();
  app = await startAppHost();
  mkdirSync(join(app.host.workspace, LONG_DIR), { recursive: true });
  writeFileSync(join(app.host.workspace, LONG_FILE), 'one\ntwo\n');
  phone = await openDevice(browser, 'Test iPhone', IPHONE);
  await phone.page.goto(`${app.origin}/`);
  await pairDevice(phone, app);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
});

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

async function boxOf(locator: Locator): Promise<Box> {
  const box = await locator.boundingBox();
  if (box === null) throw new Error('no box: the element is not shown');
  return { left: box.x, right: box.x + box.width, top: box.y, bottom: box.y + box.height };
}

function overlaps(a: Box, b: Box): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

/** The page's own width: nothing may make it scroll sideways. */
function pageWidth(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth);
}

/** No box of `texts` overlaps a box of `buttons`, and every one is within the screen. */
async function apart(texts: Locator[], buttons: Locator[]): Promise<void> {
  for (const text of texts) {
    const a = await boxOf(text);
    expect(a.right).toBeLessThanOrEqual(WIDTH);
    for (const button of buttons) {
      const b = await boxOf(button);
      expect(b.right).toBeLessThanOrEqual(WIDTH);
      expect(overlaps(a, b), `${JSON.stringify(a)} overlaps ${JSON.stringify(b)}`).toBe(false);
    }
  }
}

describe('the app at 390 px', () => {
  it('keeps a long diff line inside its diff, and says what was answered, where and when', async () => {
    const { page } = phone;
    app.model.push(
      toolCallTurn([
        {
          id: 'w1',
          name: 'write_file',
          arguments: JSON.stringify({
            path: 'wide.ts',
            content: `${LONG_LINE}\n`,
            expectedSha256: null,
          }),
        },
      ]),
      textTurn('Written.'),
    );
    const runId = await submitTask(page, 'Write a wide file');
    const card = byTestId(page, 'approval-card', { state: 'pending' });
    await visible(card);
    expect(await byTestId(card, 'approval-title').innerText()).toBe('Approve?');

    const diff = byTestId(card, 'approval-diff');
    await visible(diff);
    const box = await boxOf(diff);
    expect(box.right).toBeLessThanOrEqual(WIDTH);
    expect(await pageWidth(page)).toBeLessThanOrEqual(WIDTH);
    // The line is wider than the diff, which scrolls to its end.
    const reach = await diff.evaluate((pre) => {
      pre.scrollLeft = pre.scrollWidth;
      return {
        scrolls: pre.scrollWidth > pre.clientWidth,
        overflowX: getComputedStyle(pre).overflowX,
        end: pre.scrollLeft + pre.clientWidth >= pre.scrollWidth - 1,
      };
    });
    expect(reach).toEqual({ scrolls: true, overflowX: 'auto', end: true });

    // "Exact input" shows a disclosure mark, turned when open.
    const mark = await card
      .locator('details summary')
      .evaluate((summary) => getComputedStyle(summary, '::before').content);
    expect(mark).toBe('"▸"');
    await saveScreenshot(page, 'narrow-approval-diff');
    // While the run is busy the follow-up says so, and that fits too.
    expect(await placeholderFits(byTestId(page, 'followup-text'))).toBe('Follow up later');

    await byTestId(card, 'approval-approve').click();
    const answered = byTestId(page, 'approval-card', { state: 'approved' });
    await visible(answered);
    expect(await byTestId(answered, 'approval-title').innerText()).toBe('Approved');
    expect(await byTestId(answered, 'approval-resolved-by').innerText()).toMatch(
      /^approved on Test iPhone, at \d\d:\d\d( [AP]M)?$/,
    );
    expect(await answered.innerText()).not.toContain('Approve?');

    // The follow-up: its placeholder fits; Send is disabled, and looks it, while empty.
    await visible(byTestId(page, 'run-screen', { 'run-id': runId, 'session-idle': 'true' }));
    const field = byTestId(page, 'followup-text');
    await placeholderFits(field);
    const send = byTestId(page, 'followup-submit');
    expect(await send.isDisabled()).toBe(true);
    const opacity = async () => Number(await send.evaluate((b) => getComputedStyle(b).opacity));
    expect(await opacity()).toBeLessThan(0.6);
    await field.fill('   ');
    expect(await send.isDisabled()).toBe(true);
    await field.fill('Another thing');
    expect(await send.isEnabled()).toBe(true);
    expect(await opacity()).toBe(1);
    await field.fill('');
    expect(await send.isDisabled()).toBe(true);
    await saveScreenshot(page, 'narrow-followup');
  });

  it('shows a rule as its command line, never under Remove, Remove rule or Keep', async () => {
    const { page } = phone;
    app.model.push(toolCallTurn([runCommand('wc1', `wc -l ${LONG_FILE}`)]), textTurn('Counted.'));
    await submitTask(page, 'Count the lines');
    const card = byTestId(page, 'approval-card', { state: 'pending' });
    await visible(card);
    await byTestId(card, 'approval-rule-open').click();
    const offer = await visible(byTestId(card, 'approval-rule'));
    expect(await byTestId(offer, 'approval-rule-words').innerText()).toBe(`wc -l ${LONG_FILE}`);
    await byTestId(offer, 'approval-rule-confirm').click();
    await visible(byTestId(page, 'approval-card', { state: 'approved' }));

    await byTestId(page, 'nav-devices').click();
    await byTestId(page, 'devices-rules').click();
    const row = byTestId(page, 'rule-row', { source: 'app' });
    await visible(row);
    const words = byTestId(row, 'rule-words');
    const origin = byTestId(row, 'rule-origin');
    expect(await words.innerText()).toBe(`wc -l ${LONG_FILE}`);
    await apart([words, origin], [byTestId(row, 'rule-remove')]);
    expect(await pageWidth(page)).toBeLessThanOrEqual(WIDTH);
    await byTestId(row, 'rule-remove').click();
    await apart(
      [words, origin],
      [byTestId(row, 'rule-remove-confirm'), byTestId(row, 'rule-remove-cancel')],
    );
    expect(await pageWidth(page)).toBeLessThanOrEqual(WIDTH);
    await saveScreenshot(page, 'narrow-rule-confirm');
    await byTestId(row, 'rule-remove-cancel').click();
  });

  it('lists waiting approvals first, and a few answered ones apart', async () => {
    const { page } = phone;
    for (const id of ['a1', 'a2', 'a3', 'a4', 'a5']) {
      app.model.push(toolCallTurn([runCommand(id, `echo ${id}`)]), textTurn('Done.'));
      await submitTask(page, `Echo ${id}`);
      const card = byTestId(page, 'approval-card', { state: 'pending' });
      await visible(card);
      await byTestId(card, 'approval-deny').click();
      await visible(byTestId(page, 'run-screen', { 'session-idle': 'true' }));
    }
    app.model.push(toolCallTurn([runCommand('w', 'echo waiting')]), textTurn('Done.'));
    await submitTask(page, 'Echo waiting');
    await visible(byTestId(page, 'approval-card', { state: 'pending' }));

    await byTestId(page, 'nav-approvals').click();
    await visible(byTestId(page, 'approvals-screen'));
    const order = await page.evaluate(() =>
      Array.from(document.querySelectorAll('[data-testid="approval-card"]')).map((card) => ({
        state: card.getAttribute('data-state'),
        answered: card.closest('[data-testid="approvals-answered"]') !== null,
      })),
    );
    expect(order[0], pageErrors(phone)).toEqual({ state: 'pending', answered: false });
    const rest = order.slice(1);
    expect(rest.length).toBeLessThanOrEqual(5);
    expect(rest.length).toBeGreaterThan(0);
    expect(rest.every((card) => card.answered && card.state !== 'pending')).toBe(true);
    // The newest answer first: the last denied echo.
    const first = byTestId(byTestId(page, 'approvals-answered'), 'approval-card').first();
    expect(await byTestId(first, 'approval-title').innerText()).toBe('Denied');
    expect(await first.locator('pre.command').first().innerText()).toBe('echo a5');
    await saveScreenshot(page, 'narrow-approvals');
  });

  it('renames this device from the Devices screen', async () => {
    const { page } = phone;
    await byTestId(page, 'nav-devices').click();
    const row = byTestId(page, 'device-row', { current: 'true' });
    await visible(row);
    await byTestId(row, 'device-rename').click();
    const text = byTestId(row, 'device-rename-text');
    await text.fill('bad\u0007name');
    expect(await byTestId(row, 'device-rename-save').isDisabled()).toBe(true);
    await text.fill('Anna’s iPhone');
    await apart(
      [text],
      [byTestId(row, 'device-rename-save'), byTestId(row, 'device-rename-cancel')],
    );
    await byTestId(row, 'device-rename-save').click();
    await until(
      'the row to show the new name',
      () => byTestId(row, 'device-name').innerText(),
      (name) => name.startsWith('Anna’s iPhone'),
    );
    const stored = readStore(app.dataDir, (db) =>
      (db.prepare('SELECT name FROM devices').all() as { name: string }[]).map((r) => r.name),
    );
    expect(stored).toEqual(['Anna’s iPhone']);
    expect(await pageWidth(page)).toBeLessThanOrEqual(WIDTH);
  });
});

/** The follow-up's placeholder fits its text box, beside the tools and Send; returns it. */
async function placeholderFits(field: Locator): Promise<string> {
  const fit = await field.evaluate((textarea: HTMLTextAreaElement) => {
    const style = getComputedStyle(textarea);
    const context = document.createElement('canvas').getContext('2d')!;
    context.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const room =
      textarea.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return {
      placeholder: textarea.placeholder,
      text: context.measureText(textarea.placeholder).width,
      room,
      scrolls: textarea.scrollWidth > textarea.clientWidth,
    };
  });
  expect(fit.text).toBeGreaterThan(0);
  expect(fit.text, JSON.stringify(fit)).toBeLessThanOrEqual(fit.room);
  expect(fit.scrolls).toBe(false);
  return fit.placeholder;
}
