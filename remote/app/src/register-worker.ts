/**
 * Registers the service worker (src/sw.ts, built to /sw.js). A new build's worker takes
 * over at once (skipWaiting, clientsClaim): a page an older worker controlled reloads to
 * run the new build; the first worker of a fresh install takes the page without a reload.
 * Written out instead of virtual:pwa-register, whose workbox-window was 2.3 KB of the
 * first load for these few lines.
 */
export function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator)) return;
  const container = navigator.serviceWorker;
  let controlled = container.controller !== null;
  let reloading = false;
  container.addEventListener('controllerchange', () => {
    const replaced = controlled;
    controlled = true;
    if (!replaced || reloading) return;
    reloading = true;
    location.reload();
  });
  // Not registered (plain-HTTP origins have no service worker): the app runs online only.
  container.register('/sw.js', { scope: '/' }).catch(() => undefined);
}
