/**
 * remote/client/testing: names the tests use that production code does not. Production code
 * never imports this module (eslint.config.js); the public face is ./index.ts.
 */
export { MemoryStorage } from './storage.js';
export { EMPTY_HOST_STATE } from './host-state.js';
export { workspacePath } from './approval-view.js';
export type { WebSocketLike } from './websocket.js';
export { HostStateStore } from './state-store.js';
export { OUTPUT_TAIL_CHARS } from './live-reducer.js';
export { Backoff } from './backoff.js';
export type { EventSubscription } from './event-subscriptions.js';
export { FrameSocket } from './frame-socket.js';
