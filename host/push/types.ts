/**
 * Contracts of host/push/: what the dispatcher needs of the host, and one push's outcome.
 */
import type { PushSettings } from '../config/index.js';
import type { PushKeys } from '../identity/index.js';

/** The host as its pushes name it. */
export interface PushHost {
  hostId: string;
  hostName: string;
  /** Workspaces by real path → the name devices know them by. */
  workspaceName(path: string): string;
}

export interface PushDispatcherOptions {
  host: PushHost;
  keys: PushKeys;
  settings: PushSettings;
  /** Pushes in flight at once, to all devices together. */
  concurrency?: number;
  /** Logs facts about deliveries: never a payload, a key or a whole endpoint. */
  log: (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>) => void;
  now?: () => number;
}

/** What one POST to a push service came to. */
export type SendOutcome =
  | { kind: 'delivered'; status: number }
  /** 429, 5xx, a timeout or a network error: try again, after `retryAfterMs` if it said. */
  | { kind: 'retry'; status: number | null; error: string; retryAfterMs: number | null }
  /** 404 or 410: the subscription is gone for good. */
  | { kind: 'gone'; status: number; error: string }
  /** Any other answer (400, 401, 403, 413…): trying again would not help. */
  | { kind: 'failed'; status: number | null; error: string };
