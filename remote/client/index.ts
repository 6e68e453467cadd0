/**
 * remote/client/: the DOM-free client core every Tether remote uses (the PWA, the CLI,
 * the tests). It pairs with hosts, keeps an encrypted connection to each (reconnecting
 * with backoff, resuming subscriptions from their cursors), sends commands through a
 * durable outbox, and folds snapshots and events into per-host state that UIs subscribe to.
 * Storage and the WebSocket are injected: see `./browser/` and `./node/` for adapters.
 */
export { TetherClient, type PairedHostSummary, type PairResult } from './tether-client.js';
export { HostConnection } from './host-connection.js';
export { loadQuickEventCheck } from './event-parser.js';
export {
  type ConnectionEvent,
  type ConnectionStatus,
  type HostHealth,
} from './connection-types.js';
export { type CommandArgs, PendingCommand } from './outbox.js';
export {
  attachmentIdTaken,
  type OutgoingAttachment,
  outgoingAttachment,
  uploadAttachment,
  withRandomId,
} from './attachment-upload.js';
export { type HostState, pendingApprovals, toolCallsOf } from './host-state.js';
export { type ClientStorage } from './storage.js';
export { type WebSocketFactory } from './websocket.js';
export { cutText, hiddenCount, visibleParts, visibleText } from './visible-text.js';
export { approvalView, inputText, type SandboxView } from './approval-view.js';
export { costText, usageText } from './usage-text.js';
export { allowedByText } from './allowed-by-text.js';
export { commandLine } from '../../protocol/index.js';
export { failureText } from './failure-text.js';
export {
  type HeldWorktree,
  INTEGRATED_STATES,
  runsToReview,
  worktreeOf,
} from './session-worktree.js';
