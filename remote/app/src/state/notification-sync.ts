/**
 * What the app keeps in step with its pending approvals, outside its own page: the app
 * badge (the count across hosts, where `navigator.setAppBadge` exists) and the
 * notifications the service worker showed, closed once their approval was answered here,
 * on another device, by policy, or expired (docs/push.md).
 */
import { pendingApprovals } from '#client';
import type { AppView } from './app-view.js';

/**
 * Returns a listener for the model's views; it acts when the set of pending approvals
 * changed (and once at first), not on every view.
 */
export function notificationSync(): (view: AppView) => void {
  let last: string | undefined;
  return (view) => {
    if (!view.loaded) return;
    const pending = view.hosts.flatMap((host) =>
      pendingApprovals(host.state).map((approval) => `${host.hostId}/${approval.id}`),
    );
    const key = pending.sort().join(' ');
    if (key === last) return;
    last = key;
    setBadge(pending.length);
    void closeAnswered(view);
  };
}

function setBadge(count: number): void {
  if (!('setAppBadge' in navigator)) return;
  const done = count > 0 ? navigator.setAppBadge(count) : navigator.clearAppBadge();
  // Refused when the app is not installed or notifications are not allowed: nothing to show.
  done.catch(() => undefined);
}

/** Closes each approval notification whose approval this view knows and is not pending. */
async function closeAnswered(view: AppView): Promise<void> {
  if (!('serviceWorker' in navigator)) return;
  const registration = await navigator.serviceWorker.getRegistration().catch(() => undefined);
  if (registration === undefined) return;
  const shown = await registration.getNotifications().catch(() => []);
  for (const notification of shown) {
    const data: unknown = notification.data;
    if (typeof data !== 'object' || data === null) continue;
    const { hostId, approvalId } = data as { hostId?: unknown; approvalId?: unknown };
    if (typeof hostId !== 'string' || typeof approvalId !== 'string') continue;
    const approval = view.hosts.find((host) => host.hostId === hostId)?.state.approvals[approvalId];
    if (approval !== undefined && approval.state !== 'pending') notification.close();
  }
}
