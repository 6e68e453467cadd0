/// <reference lib="webworker" />
/**
 * The service worker: Workbox precaches the shell and every chunk (the app opens offline),
 * navigations get the cached index.html; every push shows a notification, tagged so a
 * resend replaces it, and a click opens the app at that run's approval card.
 */
import { clientsClaim } from 'workbox-core';
import {
  cleanupOutdatedCaches,
  createHandlerBoundToURL,
  precacheAndRoute,
} from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { notificationHash, OPEN_MESSAGE, pushNotification } from './logic/push-notification.js';

declare const self: ServiceWorkerGlobalScope;

// A new build takes over at once; the page reloads itself (register-worker.ts).
void self.skipWaiting();
clientsClaim();
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
registerRoute(
  new NavigationRoute(createHandlerBoundToURL('/index.html'), {
    // The host's own endpoints are never the app shell.
    denylist: [/^\/v1\//, /^\/admin/, /^\/ca\./],
  }),
);

function payloadOf(event: PushEvent): unknown {
  try {
    return event.data?.json() as unknown;
  } catch {
    return undefined;
  }
}

self.addEventListener('push', (event) => {
  const { title, options } = pushNotification(payloadOf(event));
  event.waitUntil(self.registration.showNotification(title, options));
});

/** Shows `hash` in an open window of the app (focused), else opens one. */
async function openApp(hash: string): Promise<void> {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => client.url.startsWith(self.registration.scope));
  if (open === undefined) {
    await self.clients.openWindow(new URL(`/${hash}`, self.registration.scope).href);
    return;
  }
  // The app sets its own hash: no reload, and an uncontrolled window works too.
  open.postMessage({ type: OPEN_MESSAGE, hash });
  await open.focus();
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(openApp(notificationHash(event.notification.data)));
});
