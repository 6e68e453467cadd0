/**
 * Debian's Chromium, headless, driven by playwright-core: one browser per test file, one
 * fresh context per device (its own IndexedDB, localStorage and service workers), and
 * screenshots saved under test-results/screenshots/.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from 'playwright-core';

/** Where Debian's `chromium` package puts the browser; `TETHER_CHROMIUM` overrides it. */
export const CHROMIUM_PATH = process.env['TETHER_CHROMIUM'] ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/** How long one awaited condition in the page may take (the machine is shared and noisy). */
export const PAGE_TIMEOUT_MS = 20_000;

/** The screenshots folder, under the repository's test-results/ (git-ignored). */
export const SCREENSHOTS_DIR = new URL('../../../test-results/screenshots/', import.meta.url)
  .pathname;

/** An iPhone-sized viewport: 390×844 points at 3× with touch, as an iPhone 14 shows pages. */
export const IPHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
};

/**
 * Launches Chromium, with `fakeMedia` a fake microphone granted to every page. A missing
 * browser fails the test with what to install: the browser tests never skip themselves.
 */
export async function launchChromium(
  options: {
    /** A fake microphone (a beeping tone) that pages may use without asking. */
    fakeMedia?: boolean;
  } = {},
): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}: the browser tests need Debian's chromium ` +
        '(apt-get install -y --no-install-recommends chromium, as .ci/run does), ' +
        'or TETHER_CHROMIUM=/path/to/chromium',
    );
  }
  const media = options.fakeMedia
    ? ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']
    : [];
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, ...media] });
}

/** One simulated device: a fresh browser context and its page. */
export interface Device {
  /** The name the app sends when it pairs (`tether.deviceName`). */
  readonly name: string;
  readonly context: BrowserContext;
  readonly page: Page;
  /** Messages the page logged as errors, and uncaught page errors, for failure reports. */
  readonly errors: string[];
}

/**
 * A new device: a fresh context whose pages find `name` in `localStorage['tether.deviceName']`
 * before any app script runs, so the app pairs under that name.
 */
export async function openDevice(
  browser: Browser,
  name: string,
  options: BrowserContextOptions = {},
): Promise<Device> {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(PAGE_TIMEOUT_MS);
  await context.addInitScript((deviceName: string) => {
    try {
      localStorage.setItem('tether.deviceName', deviceName);
    } catch {
      // about:blank and opaque origins have no localStorage; the app's origin has.
    }
  }, name);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  return { name, context, page, errors };
}

/** Saves a PNG of `page` as test-results/screenshots/<name>.png; resolves with its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  const path = join(SCREENSHOTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}
