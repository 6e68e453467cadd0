/**
 * remote/client/browser/: the client core's browser adapters (the PWA).
 */
export { IndexedDbStorage } from './indexeddb-storage.js';
export { browserWebSocketFactory } from './websocket.js';
