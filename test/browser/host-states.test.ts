/**
 * A phone (390x844) that moved from a demo host to a real one, both named "vm" (issue 24,
 * "A dead host traps the phone"): the demo host is reset (its data removed, started again
 * on its port), so it no longer knows the phone. Each host shows its own state under a name
 * that tells the two apart; the dead one does not take over the banner, New task picks the
 * live one and names its model, an outage of the live host shows in the banner beside the
 * dead one, and Forget this host removes the dead one for good (also after a reload).
 */
import { rmSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, pageErrors, pairDevice, visible } from './support/app-page.js';
import { until } from '../support/wait.js';
import { IPHONE, launchChromium, openDevice, type Device } from './support/chromium.js';

let browser: Browser;
/** The host paired first, reset later: it no longer knows the phone. */
let demo: AppHost;
/** The host paired second, live throughout (but for one outage). */
let real: AppHost;
let phone: Device;

/** The banner's `data-status`. */
const bannerStatus = () => byTestId(phone.page, 'connection-banner').getAttribute('data-status');

beforeAll(async () => {
  browser = await launchChromium();
  [demo, real] = await Promise.all([
    startAppHost({ env: { TETHER_HOST_NAME: 'vm' } }),
    startAppHost({ env: { TETHER_HOST_NAME: 'vm' } }),
  ]);
  phone = await openDevice(browser, 'Moving iPhone', IPHONE);
  await pairDevice(phone, demo);
  // The real host's link pasted into the pair screen of the app the demo host served.
  const page = phone.page;
  await page.evaluate(() => {
    location.hash = '#/pair';
  });
  await visible(byTestId(page, 'pair-screen'));
  await byTestId(page, 'pair-link-input').fill(await real.pairLink());
  await byTestId(page, 'pair-submit').click();
  await visible(byTestId(page, 'pair-sas'));
  await byTestId(page, 'pair-done').click();
  await visible(byTestId(page, 'runs-screen'));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([demo?.dispose(), real?.dispose()]);
});

describe('a dead host beside a live one', () => {
  it('names two hosts called alike apart, and shows each one’s state', async () => {
    const page = phone.page;
    await expect
      .poll(() => byTestId(page, 'host-name').allTextContents())
      .toEqual([`vm (127.0.0.1:${port(demo)})`, `vm (127.0.0.1:${port(real)})`]);
    for (const app of [demo, real]) {
      await visible(byTestId(page, 'host-state', { 'host-id': app.hostId, state: 'live' }));
    }
    await visible(byTestId(page, 'connection-banner', { status: 'live' }));
  });

  it('keeps the banner on the live host once the reset one refuses the phone, and New task picks the live one', async () => {
    const page = phone.page;
    await demo.host.stop();
    rmSync(demo.dataDir, { recursive: true, force: true });
    await demo.host.restart();
    const dead = byTestId(page, 'host-state', { 'host-id': demo.hostId });
    await until(
      'the reset host to refuse the phone',
      () => dead.getAttribute('data-state'),
      (state) => state === 'unknown-device',
      { timeout: 60_000 },
    );
    await visible(byTestId(page, 'host-advice'));
    await visible(byTestId(page, 'host-pair-again'));
    expect(await bannerStatus(), pageErrors(phone)).toBe('live');
    const banner = byTestId(page, 'connection-banner');
    expect(await banner.textContent()).not.toContain(port(demo));
    expect(
      await byTestId(banner, 'banner-host').evaluateAll((lines) =>
        lines.map((line) => line.getAttribute('data-host-id')),
      ),
    ).toEqual([real.hostId]);
    // Nothing of the banner is cut at 390 px.
    const overflow = await banner.evaluate((element) => element.scrollWidth - element.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);

    await byTestId(page, 'nav-submit').click();
    await visible(byTestId(page, 'submit-screen'));
    expect(await byTestId(page, 'submit-host').inputValue()).toBe(real.hostId);
    await visible(byTestId(page, 'submit-model-used', { model: 'scripted-model' }));
    await byTestId(page, 'nav-runs').click();
    await visible(byTestId(page, 'runs-screen'));
  }, 90_000);

  it('shows an outage of the live host in the banner, beside the dead one', async () => {
    await real.host.stop();
    await until(
      'the banner to say the live host is reconnecting',
      bannerStatus,
      (status) => status === 'reconnecting',
      { timeout: 30_000 },
    );
    const line = byTestId(phone.page, 'banner-host', { 'host-id': real.hostId });
    expect(await line.textContent()).toMatch(/reconnecting \(attempt \d+\)/);
    await real.host.restart();
    // Retry now, rather than waiting out the backoff.
    await until(
      'the banner to say live',
      async () => {
        const retry = byTestId(phone.page, 'banner-retry');
        if ((await retry.count()) > 0)
          await retry
            .first()
            .click({ timeout: 1_000 })
            .catch(() => undefined);
        return bannerStatus();
      },
      (status) => status === 'live',
      { timeout: 30_000 },
    );
  }, 90_000);

  it('forgets the dead host on Forget this host, for good', async () => {
    const page = phone.page;
    await byTestId(page, 'host-forget').click();
    await byTestId(page, 'host-forget-confirm').click();
    await expect.poll(() => byTestId(page, 'host-name').allTextContents()).toEqual(['vm']);
    expect(await byTestId(page, 'host-state', { 'host-id': demo.hostId }).count()).toBe(0);
    await page.reload();
    await visible(byTestId(page, 'runs-screen'));
    await visible(byTestId(page, 'host-state', { 'host-id': real.hostId, state: 'live' }));
    expect(await byTestId(page, 'host-name').allTextContents()).toEqual(['vm']);
  }, 60_000);
});

function port(app: AppHost): string {
  return new URL(app.origin).port;
}
