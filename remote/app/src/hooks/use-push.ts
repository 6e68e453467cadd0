/**
 * A host's Web Push for this device (docs/push.md): whether it can be on here (else why),
 * whether it is on, and turning it on, off, and sending a test, through the connection's
 * outbox (`push.subscribe`, `push.unsubscribe`, `push.test`, deduplicated by commandId).
 *
 * A browser keeps one push subscription for the app, made with one host's key: turning
 * notifications on for a host replaces another host's subscription in this browser.
 */
import { useEffect, useState } from 'preact/hooks';
import { b64u, fromB64u, type OpResult } from '#protocol';
import {
  browserPushBlocker,
  hostPushKey,
  type PushBlocker,
  type PushEnvironment,
} from '../logic/push-availability.js';
import { platformOf } from '../logic/device-name.js';
import type { HostView } from '../state/app-view.js';
import { useAction } from '../state/use-action.js';

/** What this browser offers for push, read now. */
function pushEnvironment(): PushEnvironment {
  const platform = platformOf(navigator.userAgent, navigator.maxTouchPoints);
  const standalone =
    matchMedia('(display-mode: standalone)').matches ||
    (navigator as { standalone?: boolean }).standalone === true;
  return {
    secureContext: isSecureContext,
    pushSupported:
      'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window,
    ios: platform === 'iPhone' || platform === 'iPad',
    standalone,
    permission: 'Notification' in window ? Notification.permission : undefined,
  };
}

/** The key a subscription was made with, as b64u (undefined when the browser does not say). */
function keyOf(subscription: PushSubscription | null): string | undefined {
  const key = subscription?.options.applicationServerKey;
  return key === null || key === undefined ? undefined : b64u(new Uint8Array(key));
}

/** `PushSubscription.toJSON()` in the shape `push.subscribe` takes. */
function subscriptionArgs(subscription: PushSubscription) {
  const json = subscription.toJSON();
  const { p256dh, auth } = json.keys ?? {};
  if (json.endpoint === undefined || p256dh === undefined || auth === undefined) {
    throw new Error('The browser gave a push subscription without its keys.');
  }
  return {
    endpoint: json.endpoint,
    expirationTime: json.expirationTime ?? null,
    keys: { p256dh, auth },
  };
}

type PushTestResult = OpResult<'push.test'>;

/**
 * `subscribedOnHost` is the host's word for this device (`devices.list`), undefined until
 * listed; `changed` is called after each change the host records (to list again).
 */
export function usePush(
  host: HostView,
  subscribedOnHost: boolean | undefined,
  changed: () => void,
) {
  const action = useAction();
  const key = hostPushKey(host.info);
  const [environment, setEnvironment] = useState(pushEnvironment);
  const [browserKey, setBrowserKey] = useState<string | undefined>(undefined);
  const [tested, setTested] = useState<PushTestResult | undefined>(undefined);
  const blocker: PushBlocker | undefined =
    browserPushBlocker(environment) ?? (key === undefined ? 'host-without-push' : undefined);

  useEffect(() => {
    if (!environment.pushSupported || !environment.secureContext) return;
    let current = true;
    navigator.serviceWorker.ready
      .then((registration) => registration.pushManager.getSubscription())
      .then(
        (subscription) => current && setBrowserKey(keyOf(subscription)),
        () => undefined,
      );
    return () => {
      current = false;
    };
  }, [environment]);

  const on = key !== undefined && browserKey === key && subscribedOnHost !== false;

  // Called from the switch's click: the permission prompt needs that user gesture.
  const turnOn = () =>
    action.run('push-on', async () => {
      if (key === undefined) return;
      const permission = await Notification.requestPermission();
      setEnvironment(pushEnvironment());
      if (permission !== 'granted') return;
      const registration = await navigator.serviceWorker.ready;
      const existing = await registration.pushManager.getSubscription();
      if (existing !== null && keyOf(existing) !== key) await existing.unsubscribe();
      const subscription = await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: new Uint8Array(fromB64u(key)),
      });
      await host.connection.submit('push.subscribe', {
        subscription: subscriptionArgs(subscription),
      });
      setBrowserKey(key);
      changed();
    });

  const turnOff = () =>
    action.run('push-off', async () => {
      const registration = await navigator.serviceWorker.ready;
      const existing = await registration.pushManager.getSubscription();
      if (existing !== null && keyOf(existing) === key) await existing.unsubscribe();
      await host.connection.submit('push.unsubscribe', {});
      setBrowserKey(undefined);
      setTested(undefined);
      changed();
    });

  const test = () =>
    action.run('push-test', async () => {
      setTested(undefined);
      setTested(await host.connection.submit('push.test', {}));
      changed();
    });

  return { blocker, on, turnOn, turnOff, test, tested, busy: action.busy, error: action.error };
}
