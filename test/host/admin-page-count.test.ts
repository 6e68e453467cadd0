/**
 * The admin page's device count (issue 14): it counts the devices still paired, not the
 * revoked ones, and says how many were revoked. The page runs in Chromium against the
 * real host process; the devices pair through `tether remote pair`.
 */
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { launchChromium, PAGE_TIMEOUT_MS } from '../browser/support/chromium.js';
import { runTether } from '../cli/run-cli.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';

let host: HostProcess;
let browser: Browser;

beforeAll(async () => {
  host = await startHostProcess();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser.close();
  await host.dispose();
});

const Devices = z.looseObject({
  devices: z.array(z.looseObject({ deviceId: z.string(), name: z.string() })),
});

it('counts only the devices that are not revoked', async () => {
  for (const name of ['Phone', 'Tablet']) {
    const link = await host.pairLink();
    const paired = await runTether(
      ['remote', 'pair', link, '--name', name, '--state', join(host.dataDir, `${name}.json`)],
      host.dataDir,
    );
    expect(paired.code).toBe(0);
  }
  const { devices } = Devices.parse(await (await host.admin('GET', '/admin/api/devices')).json());
  const tablet = devices.find((device) => device.name === 'Tablet');
  expect(tablet).toBeDefined();
  await host.admin('POST', `/admin/api/devices/${tablet?.deviceId ?? ''}/revoke`, {});

  const adminUrl = /admin page: (\S+)/.exec(host.output())?.[1];
  expect(adminUrl).toBeDefined();
  const page = await browser.newPage();
  await page.goto(adminUrl ?? '');
  const status = page.locator('#status');
  await status.filter({ hasText: 'paired device' }).waitFor({ timeout: PAGE_TIMEOUT_MS });
  expect(await status.textContent()).toBe('1 paired device (1 revoked)');
  await page.close();
});
