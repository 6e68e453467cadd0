/**
 * A tool's full output read from the page: `seq 1 200000` (allowed by the host's policy
 * config) prints about 1.2 MiB, five `output.read` pages of 256 KiB. A page served on
 * the host's loopback origin is offered a download link that serves the file's bytes; a
 * page that reaches the host on a plain-HTTP LAN name (Chromium resolves `lan-mac.test`
 * to 127.0.0.1, so the host sees a non-loopback `Host`) gets no link and pages through the
 * text instead. Each page read shows exactly the file's bytes up to it, and paging stops at
 * the end.
 */
import { readFileSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_READ_BYTES } from '../../protocol/index.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, pageErrors, pairDevice, submitTask, visible } from './support/app-page.js';
import { until } from '../support/wait.js';
import {
  CHROMIUM_PATH,
  IPHONE,
  launchChromium,
  openDevice,
  type Device,
} from './support/chromium.js';
import { readStore, storeToolCalls } from './support/store-reader.js';
import { runCommand } from './support/turns.js';

const LAN_NAME = 'lan-mac.test';
const COUNT = 200_000;
/** What `seq 1 200000` prints, built here to check the host's file against. */
const SEQ_OUTPUT = Array.from({ length: COUNT }, (_, i) => `${i + 1}\n`).join('');

let app: AppHost;
/** Chromium as usual: pages on the host's loopback origin. */
let browser: Browser;
/** Chromium that resolves {@link LAN_NAME} to 127.0.0.1. */
let lanBrowser: Browser;
/** Reaches the host on `http://127.0.0.1:PORT`. */
let laptop: Device;
/** Reaches the host on `http://lan-mac.test:PORT`. */
let phone: Device;
let lanOrigin: string;
let runId: string;
let toolCallId: string;
/** The output file's bytes as the host stored them. */
let stored: string;

beforeAll(async () => {
  app = await startAppHost({ config: { policy: { commands: { allow: [['seq', '…']] } } } });
  lanOrigin = `http://${LAN_NAME}:${new URL(app.origin).port}`;
  browser = await launchChromium();
  lanBrowser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      `--host-resolver-rules=MAP ${LAN_NAME} 127.0.0.1`,
    ],
  });
  laptop = await openDevice(browser, 'Loopback Laptop', { viewport: { width: 1280, height: 800 } });
  phone = await openDevice(lanBrowser, 'LAN Phone', IPHONE);
  await pairDevice(laptop, app);
  await pairDevice(phone, app, lanOrigin);
  expect(new URL(phone.page.url()).origin).toBe(lanOrigin);

  app.model.push(
    toolCallTurn([runCommand('call_seq', `seq 1 ${COUNT}`)]),
    textTurn('Counted to two hundred thousand.'),
  );
  runId = await submitTask(phone.page, 'Count to two hundred thousand');
  await visible(
    byTestId(phone.page, 'run-screen', {
      'run-id': runId,
      state: 'succeeded',
      'session-idle': 'true',
    }),
  );
  const [call] = storeToolCalls(app.dataDir, runId);
  expect(call).toMatchObject({ name: 'run_command', state: 'succeeded' });
  toolCallId = call!.id;
  const output = readStore(app.dataDir, (db) =>
    z
      .object({ output_path: z.string(), output_bytes: z.number() })
      .parse(
        db.prepare('SELECT output_path, output_bytes FROM tool_calls WHERE id = ?').get(toolCallId),
      ),
  );
  stored = readFileSync(output.output_path, 'latin1');
  expect(stored.length).toBe(output.output_bytes);
  expect(stored === SEQ_OUTPUT).toBe(true);
  expect(stored.length).toBeGreaterThan(4 * MAX_READ_BYTES);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await lanBrowser?.close();
  await app?.dispose();
});

/** The tool card's full output as shown, once it holds `length` characters. */
async function shownOutput(device: Device, length: number): Promise<string> {
  const full = byTestId(device.page, 'tool-output-full');
  await until(
    `the full output to show ${length} characters`,
    () => full.evaluate((element) => (element.textContent ?? '').length),
    (shown) => shown >= length,
  );
  return (await full.textContent()) ?? '';
}

/**
 * Opens the full output of the run's tool call on `device` and pages through to the end:
 * after each page the text shown is the stored file up to that page, and "more" is offered
 * until the last page, then no longer.
 */
async function pageThroughOutput(device: Device): Promise<void> {
  const page = device.page;
  await page.goto(`${new URL(page.url()).origin}/#/run/${app.hostId}/${runId}`);
  const card = byTestId(page, 'tool-card', { 'tool-call-id': toolCallId, state: 'succeeded' });
  await visible(card);
  await byTestId(card, 'tool-output-load').click();
  const pages = Math.ceil(stored.length / MAX_READ_BYTES);
  for (let read = 1; read <= pages; read++) {
    const end = Math.min(read * MAX_READ_BYTES, stored.length);
    const shown = await shownOutput(device, end);
    expect(shown.length, pageErrors(device)).toBe(end);
    // Compared as a boolean: a failing toEqual would print megabytes.
    expect(shown === stored.slice(0, end), `page ${read} shows the file's bytes`).toBe(true);
    const more = byTestId(card, 'tool-output-more');
    if (read === pages) break;
    await more.click();
  }
  await until(
    'the pager to offer no more pages',
    () => byTestId(card, 'tool-output-more').count(),
    (count) => count === 0,
  );
  expect(await shownOutput(device, stored.length)).toHaveLength(stored.length);
}

describe('a tool output larger than one page', () => {
  it('pages through output.read to the end on a plain-HTTP LAN origin, with no download link', async () => {
    await pageThroughOutput(phone);
    const card = byTestId(phone.page, 'tool-card', { 'tool-call-id': toolCallId });
    expect(await byTestId(card, 'tool-output-download').count()).toBe(0);
  }, 90_000);

  it('offers a download link of the same bytes on the loopback origin, beside the pages', async () => {
    await pageThroughOutput(laptop);
    const link = await visible(byTestId(laptop.page, 'tool-output-download'));
    const href = (await link.getAttribute('href')) ?? '';
    expect(new URL(href).origin).toBe(app.origin);
    const response = await fetch(href);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).toString('latin1') === stored).toBe(true);
  }, 90_000);
});
