/**
 * The app's own service worker registration (remote/app/src/register-worker.ts), on a copy
 * of the built app served from loopback: the first worker takes the page without a reload,
 * and when the host serves a newer build the page that worker took over reloads once to
 * run it.
 */
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openDevice, type Device } from './support/chromium.js';
import { serveFolder, type StaticServer } from './support/static-server.js';

const APP_DIR = new URL('../../dist/app/', import.meta.url).pathname;

let browser: Browser;
let phone: Device;
let server: StaticServer;
let appCopy: string;

/** Navigations of the page's main frame since the test began. */
const loads: string[] = [];

beforeAll(async () => {
  appCopy = mkdtempSync(join(tmpdir(), 'tether-worker-update-'));
  cpSync(APP_DIR, appCopy, { recursive: true });
  server = await serveFolder(appCopy);
  browser = await launchChromium();
  phone = await openDevice(browser, 'Update iPhone');
  phone.page.on('framenavigated', (frame) => {
    if (frame === phone.page.mainFrame()) loads.push(frame.url());
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (appCopy !== undefined) rmSync(appCopy, { recursive: true, force: true });
});

/** Marks the page's document, so a reload shows as the mark gone. */
const mark = () =>
  phone.page.evaluate(() => ((window as unknown as { mark?: boolean }).mark = true));
const marked = () =>
  phone.page.evaluate(() => (window as unknown as { mark?: boolean }).mark === true);

describe('the service worker registration', () => {
  it('lets the first worker take the page without reloading it', async () => {
    await phone.page.goto(`${server.origin}/`);
    await phone.page.locator('[data-testid="pair-screen"]').waitFor();
    await mark();
    await phone.page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await phone.page.waitForTimeout(500);
    expect(await marked()).toBe(true);
    expect(loads).toHaveLength(1);
  }, 60_000);

  it('reloads a page once when a newer build’s worker takes it over', async () => {
    const before = await phone.page.evaluate(
      () => navigator.serviceWorker.controller?.scriptURL ?? null,
    );
    expect(before).toBe(`${server.origin}/sw.js`);
    await mark();
    // A newer build: the worker script differs by a byte, as any new build's does.
    appendFileSync(join(appCopy, 'sw.js'), '\n// a newer build\n');
    const reloaded = phone.page.waitForEvent('load');
    await phone.page.evaluate(async () => {
      const registration = await navigator.serviceWorker.getRegistration();
      await registration?.update();
    });
    await reloaded;
    await phone.page.locator('[data-testid="pair-screen"]').waitFor();
    expect(await marked()).toBe(false);
    // Once: the reloaded page is controlled by the new worker and stays.
    await phone.page.waitForTimeout(1000);
    expect(loads).toHaveLength(2);
  }, 60_000);

  it('reloads a page that opened under a worker when the next build comes', async () => {
    await mark();
    appendFileSync(join(appCopy, 'sw.js'), '\n// the build after\n');
    const reloaded = phone.page.waitForEvent('load');
    await phone.page.evaluate(async () => {
      const registration = await navigator.serviceWorker.getRegistration();
      await registration?.update();
    });
    await reloaded;
    await phone.page.locator('[data-testid="pair-screen"]').waitFor();
    expect(await marked()).toBe(false);
    await phone.page.waitForTimeout(1000);
    expect(loads).toHaveLength(3);
  }, 60_000);
});
