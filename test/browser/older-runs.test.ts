/**
 * The runs list pages in runs older than the snapshot's recent 50 (`runs.list`), in the
 * built app in headless Chromium against a real host: when the end of the list comes into
 * view (again after each page while it stays there), and by the `runs-more` button.
 * Browser test: needs `npm run build` (dist/app) and Chromium, as test/browser does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TetherClient } from '../../remote/client/index.js';
import { FileStorage, nodeWebSocketFactory } from '../../remote/client/node/index.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, pairDevice } from './support/app-page.js';
import { until } from '../support/wait.js';
import { launchChromium, openDevice, type Device } from './support/chromium.js';
import { textTurn } from '../support/scripted-model-server.js';

/** More than a snapshot lists and more than one page of 100. */
const RUNS = 130;

let browser: Browser;
let app: AppHost;
let phone: Device;
let seedDir: string;

const rowIds = () =>
  byTestId(phone.page, 'run-row').evaluateAll((rows) =>
    rows.map((row) => row.getAttribute('data-run-id')),
  );
const rowCount = () => byTestId(phone.page, 'run-row').count();

beforeAll(async () => {
  browser = await launchChromium();
  app = await startAppHost();
  seedDir = mkdtempSync(join(tmpdir(), 'tether-older-runs-'));
  const seeder = new TetherClient({
    storage: new FileStorage(join(seedDir, 'client.json')),
    socketFactory: nodeWebSocketFactory(),
  });
  const paired = await seeder.pair(await app.host.pairLink(), { name: 'Seeder', platform: 'test' });
  const connection = await seeder.connect(paired.hostId);
  for (let i = 1; i <= RUNS; i++) {
    app.model.push(textTurn('Done.'));
    await connection.submit('run.submit', { input: { text: `Seeded run ${i}` } });
  }
  await seeder.close();
  phone = await openDevice(browser, 'Paging phone', { viewport: { width: 390, height: 844 } });
  await pairDevice(phone, app, app.localhostOrigin);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
  if (seedDir !== undefined) rmSync(seedDir, { recursive: true, force: true });
});

describe('older runs', () => {
  it('lists the snapshot’s runs first, and pages in the rest as the end of the list is scrolled to', async () => {
    await until('the snapshot’s runs', rowCount, (count) => count === 50);
    await until(
      'every run, scrolling to the end',
      async () => {
        await phone.page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        return rowCount();
      },
      (count) => count === RUNS,
    );
    expect(new Set(await rowIds()).size).toBe(RUNS);
    await byTestId(phone.page, 'runs-more').waitFor({ state: 'detached' });
  }, 60_000);

  it('pages in everything by itself while the end of the list stays in view', async () => {
    await phone.page.setViewportSize({ width: 390, height: 12_000 });
    await phone.page.reload();
    await until('every run without scrolling', rowCount, (count) => count === RUNS);
    await phone.page.setViewportSize({ width: 390, height: 844 });
  }, 60_000);

  it('pages in older runs with the runs-more button where IntersectionObserver is missing', async () => {
    const old = await openDevice(browser, 'Old browser', { viewport: { width: 390, height: 844 } });
    await old.context.addInitScript(() => {
      Reflect.deleteProperty(window, 'IntersectionObserver');
    });
    await pairDevice(old, app, app.localhostOrigin);
    const count = () => byTestId(old.page, 'run-row').count();
    await until('the snapshot’s runs', count, (shown) => shown === 50);
    await old.page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    expect(await count()).toBe(50);
    await byTestId(old.page, 'runs-more').click();
    await until('the next page', count, (shown) => shown === 100);
    await byTestId(old.page, 'runs-more').click();
    await until('the last page', count, (shown) => shown === RUNS);
    await byTestId(old.page, 'runs-more').waitFor({ state: 'detached' });
    await old.context.close();
  }, 60_000);
});
