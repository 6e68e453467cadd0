/**
 * Whether this browser can get Web Push from a host, and if not, why in the user's words
 * with the next step (docs/push.md "Why notifications can be unavailable").
 */

/** Why notifications cannot be turned on here. */
export type PushBlocker =
  'insecure' | 'ios-not-installed' | 'unsupported' | 'denied' | 'host-without-push';

/** What the browser offers, as the app reads it from `window` and `navigator`. */
export interface PushEnvironment {
  /** `isSecureContext`: HTTPS, or a loopback address. */
  secureContext: boolean;
  /** Service workers, `PushManager` and `Notification` all exist. */
  pushSupported: boolean;
  /** The platform is `iPhone` or `iPad` (logic/device-name.ts). */
  ios: boolean;
  /** Opened as an installed app (`display-mode: standalone`, or iOS's `navigator.standalone`). */
  standalone: boolean;
  /** `Notification.permission`, when it exists. */
  permission: 'default' | 'granted' | 'denied' | undefined;
}

/** What keeps this browser from push, whatever the host; undefined when nothing does. */
export function browserPushBlocker(env: PushEnvironment): PushBlocker | undefined {
  if (!env.secureContext) return 'insecure';
  // iOS gives PushManager only to a Home Screen app: a Safari tab has none.
  if (env.ios && !env.standalone) return 'ios-not-installed';
  if (!env.pushSupported) return 'unsupported';
  if (env.permission === 'denied') return 'denied';
  return undefined;
}

/** The VAPID key of a host that pushes (capability `push` and `host.info.push`), else undefined. */
export function hostPushKey(
  info: { capabilities: readonly string[]; push?: { vapidPublicKey: string } } | undefined,
): string | undefined {
  if (info === undefined || !info.capabilities.includes('push')) return undefined;
  return info.push?.vapidPublicKey;
}

/** Why, and what to do, for `blocker`; `origin` is the app's, `hostName` the host's. */
export function pushBlockerText(
  blocker: PushBlocker,
  context: { origin: string; hostName: string },
): { why: string; next: string } {
  switch (blocker) {
    case 'insecure':
      return {
        why: `Notifications need HTTPS: Tether is open at ${context.origin}, plain HTTP, where browsers give no push.`,
        next: 'Start the host with `tether start --https` and trust its certificate on this device, or with `tether start --tailscale` to reach it at its ts.net address (docs/https.md); then pair again at the https:// address.',
      };
    case 'ios-not-installed':
      return {
        why: 'On iPhone and iPad, only the app added to the Home Screen gets notifications, not a Safari tab.',
        next: 'Tap Share, then Add to Home Screen, and open Tether from its icon (iOS 16.4 or later).',
      };
    case 'unsupported':
      return {
        why: 'This browser has no Web Push.',
        next: 'Use a current Safari (iOS 16.4+, from the Home Screen), Chrome, Edge or Firefox.',
      };
    case 'denied':
      return {
        why: 'Notifications are blocked for Tether in this browser.',
        next: 'Allow them in the settings (on iPhone: Settings, Notifications, Tether; elsewhere the site settings of this address), then come back here.',
      };
    case 'host-without-push':
      return {
        why: `${context.hostName} does not send notifications (it runs a Tether without push).`,
        next: 'Update Tether on that Mac and restart it.',
      };
  }
}
