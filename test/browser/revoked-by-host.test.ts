/**
 * This device revoked from elsewhere: by another paired device from its devices screen,
 * and by the host's admin API (what `tether revoke` calls). The host closes the page's
 * socket with 4403; the page says this device was revoked, shows the pair screen, and has
 * forgotten the host: after a reload IndexedDB holds no record, outbox or cached state of it.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, pageErrors, pairDevice, visible } from './support/app-page.js';
import { until } from '../support/wait.js';
import { IPHONE, launchChromium, openDevice, type Device } from './support/chromium.js';
import { storeDevices, storeEvents } from './support/store-reader.js';

const HOST_NAME = 'Revoking Mac';

let browser: Browser;
let app: AppHost;
/** Revoked by the laptop. */
let phone: Device;
/** Revoked through the admin API. */
let tablet: Device;
/** The device that revokes the phone. */
let laptop: Device;

/** A device whose pages record the close code of every WebSocket they open. */
async function openRecordingDevice(name: string): Promise<Device> {
  const device = await openDevice(browser, name, IPHONE);
  await device.context.addInitScript(() => {
    const codes: number[] = [];
    (window as unknown as { closeCodes: number[] }).closeCodes = codes;
    const Native = WebSocket;
    window.WebSocket = class extends Native {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        this.addEventListener('close', (event) => codes.push(event.code));
      }
    };
  });
  return device;
}

const closeCodes = (device: Device) =>
  device.page.evaluate(() => (window as unknown as { closeCodes: number[] }).closeCodes);

const deviceId = (name: string) =>
  storeDevices(app.dataDir).find((device) => device.name === name)!.deviceId;

/** Every key and value in the app's IndexedDB store, as text. */
function storedEntries(device: Device): Promise<Array<[string, string]>> {
  return device.page.evaluate(
    () =>
      new Promise<Array<[string, string]>>((resolve, reject) => {
        const open = indexedDB.open('tether-client');
        open.onerror = () => reject(new Error(`IndexedDB open failed: ${open.error?.message}`));
        open.onsuccess = () => {
          const store = open.result.transaction('kv', 'readonly').objectStore('kv');
          const keys = store.getAllKeys();
          const values = store.getAll();
          store.transaction.oncomplete = () => {
            // The app's keys are strings and its values JSON text (indexeddb-storage.ts).
            resolve(keys.result.map((key, i) => [key as string, values.result[i] as string]));
            open.result.close();
          };
        };
      }),
  );
}

/**
 * The page after its device was revoked elsewhere: the socket closed with 4403, the notice
 * naming the host, the pair screen; after a reload still the pair screen, nothing stored of
 * the host.
 */
async function expectRevokedAndForgotten(device: Device): Promise<void> {
  const notice = await visible(byTestId(device.page, 'revoked-notice'));
  expect(await notice.textContent(), pageErrors(device)).toContain(
    `This device was revoked on ${HOST_NAME}`,
  );
  await visible(byTestId(device.page, 'pair-screen'));
  expect(await closeCodes(device)).toContain(4403);

  await until(
    'the paired host record to be forgotten',
    () => storedEntries(device),
    (entries) => entries.some(([key, value]) => key === 'paired-hosts' && value === '[]'),
  );
  await device.page.reload();
  await visible(byTestId(device.page, 'pair-screen'));
  expect(await byTestId(device.page, 'nav-runs').count()).toBe(0);
  const entries = await storedEntries(device);
  expect(entries.map(([key]) => key)).toContain('device-identity');
  const mentions = entries.filter(([key, value]) => `${key} ${value}`.includes(app.hostId));
  expect(mentions.map(([key]) => key)).toEqual([]);
  // Nothing reconnects after the reload: the only sockets were the ones before it.
  expect(await closeCodes(device)).toEqual([]);
}

beforeAll(async () => {
  browser = await launchChromium();
  app = await startAppHost({ env: { TETHER_HOST_NAME: HOST_NAME } });
  phone = await openRecordingDevice('Revoked iPhone');
  tablet = await openRecordingDevice('Revoked Tablet');
  laptop = await openDevice(browser, 'Revoking Laptop', { viewport: { width: 1280, height: 800 } });
  for (const device of [phone, tablet, laptop]) await pairDevice(device, app);
  for (const device of [phone, tablet]) {
    expect(await storedEntries(device)).toContainEqual([
      'paired-hosts',
      expect.stringContaining(app.hostId),
    ]);
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
});

describe('this device revoked by the host', () => {
  it('is revoked from another device: the page is closed with 4403, says so and forgets the host', async () => {
    const phoneId = deviceId('Revoked iPhone');
    await byTestId(laptop.page, 'nav-devices').click();
    const row = byTestId(laptop.page, 'device-row', { 'device-id': phoneId, current: 'false' });
    await visible(row);
    // Another device's row revokes at the first tap.
    await byTestId(row, 'device-revoke').click();
    await row.waitFor({ state: 'detached' });

    await expectRevokedAndForgotten(phone);
    expect(storeDevices(app.dataDir).filter((device) => device.revoked)).toEqual([
      { deviceId: phoneId, name: 'Revoked iPhone', revoked: true },
    ]);
    const revoked = storeEvents(app.dataDir).filter((event) => event.type === 'device.revoked');
    expect(revoked.map((event) => event.payload['deviceId'])).toEqual([phoneId]);
    // The revoking device and the untouched one stay paired and connected.
    await visible(byTestId(laptop.page, 'connection-banner', { status: 'live' }));
    await visible(byTestId(tablet.page, 'connection-banner', { status: 'live' }));
    expect(await closeCodes(tablet)).not.toContain(4403);
  }, 60_000);

  it('is revoked through the admin API: the page is closed with 4403, says so and forgets the host', async () => {
    const tabletId = deviceId('Revoked Tablet');
    const response = await app.host.admin('POST', `/admin/api/devices/${tabletId}/revoke`);
    expect(response.status).toBe(200);

    await expectRevokedAndForgotten(tablet);
    expect(
      storeDevices(app.dataDir)
        .filter((device) => device.revoked)
        .map((device) => device.name),
    ).toEqual(['Revoked iPhone', 'Revoked Tablet']);
    await visible(byTestId(laptop.page, 'connection-banner', { status: 'live' }));
  }, 60_000);
});
