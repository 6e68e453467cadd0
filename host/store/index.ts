/**
 * host/store/: the SQLite store, the only writer of Tether's facts.
 */
export { Store } from './store.js';
export type { WriteContext, CommitListener } from './store.js';
export { StoreOpenError } from './database.js';
export { lockDataDir } from './data-dir-lock.js';
export { isPersistenceFailed } from './persistence.js';
export type { PersistenceState, PersistenceListener } from './persistence.js';
export type { EventScope } from './event-log.js';
export type { StoredRun, StoredMessage } from './session-run-rows.js';
export type { PageCursor } from './sessions-and-runs.js';
export type { StoredSummary } from './session-summaries.js';
export type { StoredToolCall, StoredArtifact, OutputFile } from './tool-records.js';
export type { ModelUsageTotals } from './usage-totals.js';
export { newId } from './ids.js';
export { readFilePage } from './output-files.js';
export { readHistoryMark } from './history-mark.js';
export {
  allocatedHead,
  databaseIdentity,
  describeRewind,
  unacknowledgedRewinds,
} from './history-rewinds.js';
export type { HistoryRewind } from './history-rewinds.js';
export type { HistoryState } from './store-history.js';
export type { StoredAllowRule } from './allow-rules.js';
export type { PendingIntegration, StoredWorktree } from './worktrees.js';
export type { StoredDevice } from './devices.js';
export type { StoredAttachment } from './attachments.js';
export type { StoredOffer } from './pairing-offers.js';
export type {
  NewPushDelivery,
  StoredPushDelivery,
  StoredPushSubscription,
} from './push-records.js';
