/**
 * What the service worker shows for a push (docs/push.md): the host's payload
 * (`PushPayload` in protocol/push.ts) as a notification tagged per approval or run, and the
 * screen a click opens. Checked by hand, not with zod, so the worker stays small; a push
 * that is not a valid payload still shows a notification, since iOS revokes a subscription
 * whose pushes show nothing.
 */
import { routeHash } from './route.js';

/** What a notification keeps in its `data`: where it leads, and what it is about. */
export interface PushNotificationData {
  /** The hash a click opens: the run's screen (its approval card), else the devices screen. */
  hash: string;
  hostId: string | undefined;
  approvalId: string | undefined;
}

/** The arguments of `registration.showNotification` for one push. */
export interface PushNotification {
  title: string;
  options: { body: string; tag: string | undefined; data: PushNotificationData };
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** The notification for a push whose data parsed as `payload` (undefined: no or bad JSON). */
export function pushNotification(payload: unknown): PushNotification {
  const fields: Record<string, unknown> =
    typeof payload === 'object' && payload !== null ? { ...payload } : {};
  const hostId = text(fields['hostId']);
  const runId = text(fields['runId']);
  const hostName = text(fields['hostName']);
  return {
    title: text(fields['title']) ?? (hostName === undefined ? 'Tether' : `Tether on ${hostName}`),
    options: {
      body: typeof fields['body'] === 'string' ? fields['body'] : '',
      tag: text(fields['tag']),
      data: {
        hash:
          hostId !== undefined && runId !== undefined
            ? routeHash({ screen: 'run', hostId, runId })
            : routeHash({ screen: hostId === undefined ? 'runs' : 'devices' }),
        hostId,
        approvalId: text(fields['approvalId']),
      },
    },
  };
}

/** The hash a notification's `data` leads to (`#/runs` for anything else). */
export function notificationHash(data: unknown): string {
  if (typeof data !== 'object' || data === null || !('hash' in data)) return '#/runs';
  return typeof data.hash === 'string' && data.hash.startsWith('#/') ? data.hash : '#/runs';
}

/** The message the worker posts to an open app to show a screen. */
export const OPEN_MESSAGE = 'tether.open';

/** The hash of the worker's open message, if `message` is one. */
export function openMessageHash(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null || !('type' in message)) return undefined;
  return message.type === OPEN_MESSAGE ? notificationHash(message) : undefined;
}
