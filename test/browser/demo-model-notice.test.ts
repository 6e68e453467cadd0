/**
 * A host started with `--demo` is labelled as a demo in the app: the real host process
 * answers `host.info` with its `modelNotice`, and the page shows it on the runs list and
 * on the form that sends that host a task, so the scripted answers are not taken for an
 * AI's.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, openSubmitForm, pageErrors, pairDevice, visible } from './support/app-page.js';
import { IPHONE, launchChromium, openDevice, type Device } from './support/chromium.js';

/** What `host.info` of a `--demo` host says (docs/protocol.md). */
const DEMO_NOTICE = 'demo model: scripted, not an AI';

let browser: Browser;
let app: AppHost;
let phone: Device;

beforeAll(async () => {
  browser = await launchChromium();
  app = await startAppHost({ args: ['--demo'] });
  phone = await openDevice(browser, 'Demo iPhone', IPHONE);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
});

describe('a host running the demo model', () => {
  it('says so on the runs list and on the submit form', async () => {
    await pairDevice(phone, app);
    const runsNotice = await visible(
      byTestId(byTestId(phone.page, 'runs-screen'), 'host-model-notice', {
        'host-id': app.hostId,
      }),
    );
    expect(await runsNotice.textContent(), pageErrors(phone)).toBe(DEMO_NOTICE);

    await openSubmitForm(phone.page, 'Show me around');
    const submitNotice = await visible(
      byTestId(byTestId(phone.page, 'submit-screen'), 'host-model-notice'),
    );
    expect(await submitNotice.textContent(), pageErrors(phone)).toBe(DEMO_NOTICE);
  });
});
