/**
 * Web Push in the app (issue 13, docs/push.md), on `http://localhost` (a secure context):
 * "Notify me" on the Devices screen subscribes with the host's VAPID key and the host
 * records the subscription; "Send a test" reaches the fake push service and shows its
 * result; the service worker shows a notification for the host's approval push, tagged
 * per approval so a resend replaces it; clicking it opens the run's approval card; and it
 * closes when the approval is answered on another device.
 *
 * Headless Chromium cannot subscribe for real (no push service without Google's network),
 * so the phone's PushManager hands out a subscription on the fake push service
 * (support/push-page.ts); the pushes the host sends there, decrypted by the fake, are then
 * delivered to the service worker through the DevTools protocol.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textTurn } from '../support/scripted-model-server.js';
import {
  startFakePushService,
  type FakePushService,
  type FakeSubscriber,
} from '../support/fake-push-service.js';
import { until } from '../support/wait.js';
import { startAppHost, type AppHost } from './support/app-host.js';
import { byTestId, pageErrors, pairDevice, submitTask, visible } from './support/app-page.js';
import { IPHONE, launchChromium, openDevice, type Device } from './support/chromium.js';
import {
  clickNotification,
  deliverUntilShown,
  fakePushManager,
  pushSession,
  shownNotifications,
  subscribedKeys,
} from './support/push-page.js';
import { readStore, storeDevices } from './support/store-reader.js';
import { runCommand, sayThenCall } from './support/turns.js';

const SUBJECT = 'mailto:browser-push-tests@example.org';

let browser: Browser;
let fake: FakePushService;
let subscriber: FakeSubscriber;
let app: AppHost;
/** Subscribes to push, gets the notifications. */
let phone: Device;
/** Submits the runs and answers the approvals. */
let laptop: Device;
let session: Awaited<ReturnType<typeof pushSession>>;

/** The phone's subscription as the host stored it, if any. */
function storedSubscription(): { endpoint: string; p256dh: string; auth: string } | undefined {
  const phoneId = storeDevices(app.dataDir).find((device) => device.name === phone.name)?.deviceId;
  return readStore(
    app.dataDir,
    (db) =>
      db
        .prepare('SELECT endpoint, p256dh, auth FROM push_subscriptions WHERE device_id = ?')
        .get(phoneId) as { endpoint: string; p256dh: string; auth: string } | undefined,
  );
}

/** The decrypted payload of the fake's `index`th push, once it came. */
async function receivedPayload(index: number): Promise<Record<string, unknown>> {
  const received = await fake.waitFor(index + 1, 20_000);
  const push = received[index]!;
  expect(push.problems).toEqual([]);
  return push.payload as Record<string, unknown>;
}

beforeAll(async () => {
  browser = await launchChromium();
  fake = await startFakePushService();
  subscriber = fake.subscriber();
  app = await startAppHost({
    config: {
      push: {
        subject: SUBJECT,
        allowedEndpoints: [fake.origin],
        retry: { initialDelayMs: 100, maxDelayMs: 400, maxAttempts: 4, requestTimeoutMs: 3000 },
      },
    },
  });
  phone = await openDevice(browser, 'Push iPhone', IPHONE);
  await phone.context.grantPermissions(['notifications'], { origin: app.localhostOrigin });
  await fakePushManager(phone, subscriber);
  laptop = await openDevice(browser, 'Push Laptop', { viewport: { width: 1280, height: 800 } });
  await pairDevice(phone, app, app.localhostOrigin);
  await pairDevice(laptop, app);
  await phone.page.evaluate(() => navigator.serviceWorker.ready);
  session = await pushSession(phone);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.dispose();
  await fake?.close();
});

describe('web push in the app', () => {
  it('"Notify me" subscribes with the host\'s VAPID key, the host records it, and "Send a test" is delivered', async () => {
    await byTestId(phone.page, 'nav-devices').click();
    const section = await visible(byTestId(phone.page, 'push-section', { state: 'off' }));
    expect(storedSubscription()).toBeUndefined();

    await byTestId(section, 'push-switch').click();
    await visible(byTestId(phone.page, 'push-section', { state: 'on' }));
    expect(storedSubscription(), pageErrors(phone)).toEqual({
      endpoint: subscriber.subscription.endpoint,
      p256dh: subscriber.subscription.keys.p256dh,
      auth: subscriber.subscription.keys.auth,
    });
    const keys = await subscribedKeys(phone);
    expect(keys).toHaveLength(1);
    // The fake verifies each push's VAPID JWT against this key: the one the app subscribed with.
    fake.expect(keys[0]!, SUBJECT);
    await visible(
      byTestId(phone.page, 'device-row', { current: 'true' }).locator(
        '[data-testid="device-push"][data-subscribed="true"]',
      ),
    );

    await byTestId(phone.page, 'push-test').click();
    const result = await visible(byTestId(phone.page, 'push-test-result', { status: 'delivered' }));
    expect(await result.textContent()).toContain('Delivered');
    const payload = await receivedPayload(0);
    expect(payload).toMatchObject({ v: 1, kind: 'test', hostId: app.hostId, runId: null });
    await expect
      .poll(() =>
        byTestId(phone.page, 'device-row', { current: 'true' })
          .locator('[data-testid="device-push"]')
          .textContent(),
      )
      .toContain('last delivered');

    // The test push, delivered to the worker, shows (every push shows something: iOS).
    const shown = await deliverUntilShown(
      session,
      phone,
      app.localhostOrigin,
      payload,
      String(payload['tag']),
    );
    expect(shown.find((n) => n.tag === payload['tag'])?.title).toBe(payload['title']);
  }, 90_000);

  it('shows the approval push tagged per approval, a resend replaces it, and a click opens the approval card', async () => {
    app.model.push(
      sayThenCall(['Checking.'], [runCommand('call_push', 'echo pushed')], 10),
      textTurn('Done.'),
    );
    const runId = await submitTask(laptop.page, 'Ask for approval, then finish');
    const payload = await receivedPayload(1);
    expect(payload).toMatchObject({ kind: 'approval', hostId: app.hostId, runId });
    const approvalId = String(payload['approvalId']);
    const tag = `approval:${app.hostId}:${approvalId}`;
    expect(payload['tag']).toBe(tag);

    await byTestId(phone.page, 'nav-runs').click();
    await visible(byTestId(phone.page, 'runs-screen'));
    await deliverUntilShown(session, phone, app.localhostOrigin, payload, tag);
    // Sent again, it replaces the one shown.
    const shown = await deliverUntilShown(session, phone, app.localhostOrigin, payload, tag);
    expect(shown.filter((n) => n.tag === tag)).toEqual([
      { tag, title: payload['title'], body: payload['body'] },
    ]);

    await clickNotification(phone, tag);
    await visible(byTestId(phone.page, 'run-screen', { 'run-id': runId }));
    expect(new URL(phone.page.url()).hash).toBe(`#/run/${app.hostId}/${runId}`);
    await visible(
      byTestId(phone.page, 'approval-card', { 'approval-id': approvalId, state: 'pending' }),
    );
    await until(
      'the clicked notification to close',
      () => shownNotifications(phone),
      (list) => !list.some((n) => n.tag === tag),
    );
  }, 90_000);

  it('closes the approval notification when the approval is answered on another device', async () => {
    const payload = await receivedPayload(1);
    const tag = String(payload['tag']);
    await byTestId(phone.page, 'nav-runs').click();
    // Shown again under the tag the last test clicked (and closed).
    await deliverUntilShown(session, phone, app.localhostOrigin, payload, tag);

    const card = byTestId(laptop.page, 'approval-card', { state: 'pending' });
    await visible(card);
    await visible(byTestId(card, 'approval-digest', { match: 'true' }));
    await byTestId(card, 'approval-approve').click();
    await visible(byTestId(laptop.page, 'approval-card', { state: 'approved' }));

    await until(
      "the phone to close the answered approval's notification",
      () => shownNotifications(phone),
      (list) => !list.some((n) => n.tag === tag),
    );
  }, 90_000);
});
