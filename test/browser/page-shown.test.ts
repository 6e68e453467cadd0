/**
 * Coming back to the app: a page that failed to reach its host several times waits out a
 * growing backoff (up to 30 s). When the page comes back into view (`visibilitychange`,
 * as when an iPhone reopens the app), when the network comes back (`online`), or when the
 * user taps Retry now in the banner, it tries at once: live again in well under the wait
 * its banner still announces. The page reaches the host through a proxy that refuses it
 * (support/cut-off-proxy.ts), with no `offline` event, as on a network that went away.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, pairDevice, visible } from './support/app-page.js';
import { until } from '../support/wait.js';
import { IPHONE, launchChromium, openDevice, type Device } from './support/chromium.js';
import { startCutOffProxy, type CutOffProxy } from './support/cut-off-proxy.js';

/** The shortest announced wait that proves the retry did not come from the timer. */
const LONG_WAIT_S = 6;

let browser: Browser;
let app: AppHost;
let proxy: CutOffProxy;
let phone: Device;

beforeAll(async () => {
  app = await startAppHost();
  proxy = await startCutOffProxy(() => app.origin);
  browser = await launchChromium();
  phone = await openDevice(browser, 'Returning iPhone', IPHONE);
  await pairDevice(phone, app, proxy.origin);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await app?.dispose();
});

/**
 * Cuts the page off until its banner announces a long wait, lets the host through again,
 * does `retry` and returns how long the page took to be live, with the announced wait.
 */
async function liveAfter(
  retry: () => Promise<unknown>,
): Promise<{ tookMs: number; announced: string }> {
  const banner = byTestId(phone.page, 'connection-banner');
  await visible(byTestId(phone.page, 'connection-banner', { status: 'live' }));
  proxy.cut();
  // Failures grow the backoff; wait for one that announces a long wait.
  const announced = await until(
    `a wait of at least ${LONG_WAIT_S} s`,
    () => banner.textContent(),
    (text) => Number(/ in (\d+) s/.exec(text ?? '')?.[1] ?? 0) >= LONG_WAIT_S,
    { timeout: 90_000 },
  );
  const shownAt = Date.now();
  proxy.restore();
  await retry();
  await until(
    'the banner to say live',
    () => banner.getAttribute('data-status'),
    (status) => status === 'live',
    { timeout: 10_000 },
  );
  return { tookMs: Date.now() - shownAt, announced: announced ?? '' };
}

describe('the page coming back into view', () => {
  it('reconnects at once instead of waiting out its backoff', async () => {
    const { tookMs, announced } = await liveAfter(() =>
      phone.page.evaluate(() => document.dispatchEvent(new Event('visibilitychange'))),
    );
    // The timer alone would have waited about the announced seconds (less the few ms
    // between its start and the banner being read).
    console.log(`page shown: live ${tookMs} ms after "${announced}"`);
    expect(tookMs, announced).toBeLessThan((LONG_WAIT_S - 2) * 1000);
  }, 120_000);

  it('reconnects at once when the network comes back (`online`)', async () => {
    const { tookMs, announced } = await liveAfter(() =>
      phone.page.evaluate(() => window.dispatchEvent(new Event('online'))),
    );
    console.log(`online: live ${tookMs} ms after "${announced}"`);
    expect(tookMs, announced).toBeLessThan((LONG_WAIT_S - 2) * 1000);
  }, 120_000);

  it('counts down the wait in the banner, and reconnects at once on Retry now', async () => {
    const { tookMs, announced } = await liveAfter(async () => {
      const banner = byTestId(phone.page, 'connection-banner');
      const first = Number(/ in (\d+) s/.exec((await banner.textContent()) ?? '')?.[1]);
      // The seconds go down while the page waits (a fixed "in 25 s" said nothing).
      await until(
        'the countdown to go down',
        async () => Number(/ in (\d+) s/.exec((await banner.textContent()) ?? '')?.[1]),
        (seconds) => seconds < first,
      );
      const retry = byTestId(phone.page, 'banner-retry');
      expect(await retry.isVisible()).toBe(true);
      // Nothing of the banner is cut at 390 px, the countdown and the button included.
      expect(
        await banner.evaluate((element) => element.scrollWidth - element.clientWidth),
      ).toBeLessThanOrEqual(0);
      await retry.click();
    });
    console.log(`retry now: live ${tookMs} ms after "${announced}"`);
    expect(tookMs, announced).toBeLessThan((LONG_WAIT_S - 1) * 1000);
  }, 120_000);
});
