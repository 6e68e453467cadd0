/**
 * host/runtime/: runs, their scheduler and model→tool→model loop, and recovery.
 */
export { Runtime } from './runtime.js';
export type { Subscription } from './subscriptions.js';
export { REPLAY_WINDOW } from './subscriptions.js';
export type { RuntimeModel, LiveMessage, LiveRun } from './types.js';
