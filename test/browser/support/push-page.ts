/**
 * Web Push in headless Chromium, where `pushManager.subscribe` always fails ("Registration
 * failed - permission denied": no push service without Google's network, and the tests
 * never leave loopback). So a device's `PushManager` is replaced, before the app loads,
 * by one that hands out a subscription on the fake push service
 * (test/support/fake-push-service.ts) and records the key it was asked for; pushes reach
 * the service worker through the DevTools protocol (`ServiceWorker.deliverPushMessage`),
 * and its notifications are read with `registration.getNotifications()`.
 */
import type { CDPSession } from 'playwright-core';
import type { FakeSubscriber } from '../../support/fake-push-service.js';
import { until } from '../../support/wait.js';
import type { Device } from './chromium.js';

/**
 * Makes `device`'s `PushManager` subscribe to `subscriber` (the page's `subscribe` and
 * `getSubscription`; `window.__pushKeys` lists the `applicationServerKey`s it was given, b64u).
 */
export async function fakePushManager(device: Device, subscriber: FakeSubscriber): Promise<void> {
  await device.context.addInitScript((json: FakeSubscriber['subscription']) => {
    if (!('PushManager' in self)) return;
    const recorded: string[] = [];
    Object.assign(window, { __pushKeys: recorded });
    let current: PushSubscription | null = null;
    PushManager.prototype.subscribe = function (options?: PushSubscriptionOptionsInit) {
      const given = options?.applicationServerKey;
      const bytes =
        given instanceof ArrayBuffer
          ? new Uint8Array(given)
          : ArrayBuffer.isView(given)
            ? new Uint8Array(given.buffer, given.byteOffset, given.byteLength).slice()
            : new Uint8Array();
      recorded.push(
        btoa(String.fromCharCode(...bytes))
          .replace(/\+/g, '-')
          .replace(/\//g, '_')
          .replace(/=+$/, ''),
      );
      const subscription = {
        endpoint: json.endpoint,
        expirationTime: null,
        options: { userVisibleOnly: true, applicationServerKey: bytes.slice().buffer },
        toJSON: () => json,
        getKey: () => null,
        unsubscribe: () => {
          current = null;
          return Promise.resolve(true);
        },
      };
      current = subscription;
      return Promise.resolve(current);
    };
    PushManager.prototype.getSubscription = () => Promise.resolve(current);
  }, subscriber.subscription);
}

/** The keys the page's `PushManager` was asked to subscribe with, in order. */
export function subscribedKeys(device: Device): Promise<string[]> {
  return device.page.evaluate(
    () => (window as unknown as { __pushKeys?: string[] }).__pushKeys ?? [],
  );
}

/** A DevTools session on `device`'s page that knows its service worker registration. */
export async function pushSession(device: Device): Promise<{
  cdp: CDPSession;
  deliver(origin: string, payload: unknown): Promise<void>;
}> {
  const cdp = await device.context.newCDPSession(device.page);
  const registrations = new Map<string, string>();
  cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => {
    for (const registration of event.registrations) {
      if (registration.isDeleted) registrations.delete(registration.scopeURL);
      else registrations.set(registration.scopeURL, registration.registrationId);
    }
  });
  await cdp.send('ServiceWorker.enable');
  return {
    cdp,
    async deliver(origin, payload) {
      const registrationId = await until(`the service worker registration of ${origin}`, () =>
        registrations.get(`${origin}/`),
      );
      await cdp.send('ServiceWorker.deliverPushMessage', {
        origin,
        registrationId,
        data: JSON.stringify(payload),
      });
    },
  };
}

/**
 * Delivers `payload` until `device` shows a notification tagged `tag`, at most 3 times,
 * and returns what it shows. Headless Chromium on Linux sometimes closes a notification
 * the moment it is shown (seen about once in 20 deliveries: the worker's showNotification
 * resolved, and getNotifications at once without it, with a fresh tag or a reused one),
 * so a test whose subject is what follows a notification delivers again.
 */
export async function deliverUntilShown(
  session: { deliver(origin: string, payload: unknown): Promise<void> },
  device: Device,
  origin: string,
  payload: unknown,
  tag: string,
): Promise<Array<{ tag: string; title: string; body: string }>> {
  for (let attempt = 1; ; attempt += 1) {
    await session.deliver(origin, payload);
    const shown = await until(
      `the notification tagged ${tag}`,
      () => shownNotifications(device),
      (list) => list.some((n) => n.tag === tag),
      { timeout: 3_000 },
    ).catch((error: unknown) => {
      if (attempt === 3) throw error;
      return null;
    });
    if (shown !== null) return shown;
  }
}

/** The notifications the page's service worker registration shows now. */
export function shownNotifications(
  device: Device,
): Promise<Array<{ tag: string; title: string; body: string }>> {
  return device.page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    const shown = await registration.getNotifications();
    return shown.map((n) => ({ tag: n.tag, title: n.title, body: n.body }));
  });
}

/**
 * Clicks the notification tagged `tag` as far as a test can: dispatches `notificationclick`
 * with it in the service worker (Chromium has no way to click a notification headless).
 */
export async function clickNotification(device: Device, tag: string): Promise<void> {
  const worker = await until('the service worker', () => device.context.serviceWorkers()[0]);
  const clicked = await worker.evaluate(async (wanted: string) => {
    // The worker's own globals (the tests compile with the DOM's types only).
    const scope = self as unknown as {
      registration: ServiceWorkerRegistration;
      NotificationEvent: new (type: string, init: { notification: Notification }) => Event;
      dispatchEvent(event: Event): boolean;
    };
    const [notification] = await scope.registration.getNotifications({ tag: wanted });
    if (notification === undefined) return false;
    scope.dispatchEvent(new scope.NotificationEvent('notificationclick', { notification }));
    return true;
  }, tag);
  if (!clicked) throw new Error(`no notification tagged ${tag} to click`);
}
