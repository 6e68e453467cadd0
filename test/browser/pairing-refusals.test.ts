/**
 * A pairing link the host refuses, opened in Chromium: the pairing screen says why in the
 * link's own terms (used already, ended), with what to do next, and nothing pairs.
 * The words for every refusal are in test/app/pairing-error.test.ts; this checks that the
 * host's refusal reaches them through the real handshake.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, pageErrors, pairDevice, visible } from './support/app-page.js';
import { IPHONE, launchChromium, openDevice } from './support/chromium.js';
import { storeDevices } from './support/store-reader.js';

let browser: Browser;
let app: AppHost;

beforeAll(async () => {
  browser = await launchChromium();
  app = await startAppHost();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
});

/** Opens `link` on a new phone and resolves with what its pairing screen says. */
async function refusalShown(name: string, link: string): Promise<string> {
  const device = await openDevice(browser, name, IPHONE);
  await device.page.goto(link);
  const error = await visible(byTestId(device.page, 'pair-error'));
  const text = (await error.textContent()) ?? '';
  expect(await byTestId(device.page, 'pair-sas').count(), pageErrors(device)).toBe(0);
  return text;
}

describe('a pairing link the host refuses', () => {
  it('says a link that paired a device was used already, and pairs nothing', async () => {
    const offer = await app.host.offer(app.origin);
    const first = await openDevice(browser, 'First iPhone', IPHONE);
    // pairDevice opens its own fresh link; this one is opened by hand to be used twice.
    await first.page.goto(offer.link);
    await visible(byTestId(first.page, 'pair-sas'));
    await byTestId(first.page, 'pair-done').click();
    await visible(byTestId(first.page, 'runs-screen'));

    expect(await refusalShown('Second iPhone', offer.link)).toBe(
      'This link was used already: a link pairs one device only. Make a new link on the host with: tether pair',
    );
    expect(storeDevices(app.dataDir).map((device) => device.name)).toEqual(['First iPhone']);
  }, 60_000);

  it('says a link whose `tether pair` was stopped has expired, and pairs nothing', async () => {
    const offer = await app.host.offer(app.origin);
    // What Ctrl-C on `tether pair` asks of the host.
    const ended = await app.host.admin('POST', `/admin/api/offers/${offer.offerId}/revoke`);
    expect(ended.status).toBe(200);

    expect(await refusalShown('Late iPhone', offer.link)).toBe(
      'This link expired. Make a new link on the host with: tether pair',
    );
    expect(storeDevices(app.dataDir).map((device) => device.name)).toEqual(['First iPhone']);
    // A fresh link still pairs.
    const fresh = await openDevice(browser, 'Fresh iPhone', IPHONE);
    await pairDevice(fresh, app);
    expect(storeDevices(app.dataDir).map((device) => device.name)).toEqual([
      'First iPhone',
      'Fresh iPhone',
    ]);
  }, 60_000);
});
