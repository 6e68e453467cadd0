/**
 * remote/client/node/: the client core's Node adapters (the CLI, the tests).
 */
export { FileStorage } from './file-storage.js';
export { nodeWebSocketFactory } from './websocket.js';
