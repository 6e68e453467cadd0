/**
 * host/runtime/: runs, their scheduler and model→tool→model loop, and recovery.
 */
export { Runtime } from './runtime.js';
export type { Subscription } from './subscriptions.js';
export type { RecoveryReport } from './recovery.js';
export { REPLAY_WINDOW } from './subscriptions.js';
export { DEFAULT_LIMITS } from './types.js';
export type {
  RuntimeOptions,
  RuntimeLimits,
  RuntimeModel,
  LiveMessage,
  LiveListener,
  Actor,
} from './types.js';
