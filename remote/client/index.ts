/**
 * remote/client/: the DOM-free client core every Tether remote uses (the PWA, the CLI,
 * the tests). It pairs with hosts, keeps an encrypted connection to each (reconnecting
 * with backoff, resuming subscriptions from their cursors), sends commands through a
 * durable outbox, and folds snapshots and events into per-host state that UIs subscribe to.
 * Storage and the WebSocket are injected: see `./browser/` and `./node/` for adapters.
 */
export {
  TetherClient,
  type PairedHostSummary,
  type PairResult,
  type TetherClientOptions,
} from './tether-client.js';
export { HostConnection } from './host-connection.js';
export {
  type ConnectionEvent,
  type ConnectionSettings,
  type ConnectionStatus,
  DEFAULT_CONNECTION_SETTINGS,
  type HostConnectionOptions,
  type HostHealth,
  type RequestOpName,
  type StopReason,
} from './connection-types.js';
export type { EventSubscription } from './event-subscriptions.js';
export type { CommandOutcome } from './command-queue.js';
export { COMMAND_OPS, type CommandArgs, PendingCommand } from './outbox.js';
export {
  EMPTY_HOST_STATE,
  type HostState,
  type OutputTail,
  pendingApprovals,
  type Preview,
  toolCallsOf,
} from './host-state.js';
export { HostStateStore } from './state-store.js';
export { OUTPUT_TAIL_CHARS } from './live-reducer.js';
export { type ClientStorage, MemoryStorage } from './storage.js';
export { channelUrl, type WebSocketFactory, type WebSocketLike } from './websocket.js';
export { systemTimers, type TimerHandle, type Timers } from './timers.js';
export {
  Backoff,
  type BackoffOptions,
  DEFAULT_BACKOFF_BASE_MS,
  DEFAULT_BACKOFF_MAX_MS,
} from './backoff.js';
export { DEFAULT_KEEPALIVE, type KeepaliveSettings } from './keepalive.js';
export { cutText, hiddenCount, visibleParts, visibleText } from './visible-text.js';
export { type ApprovalView, approvalView, inputText, workspacePath } from './approval-view.js';
