/**
 * The `ws` package as the client's socket in Node (the CLI, the tests).
 */
import WebSocket, { type ClientOptions } from 'ws';
import { MAX_FRAME_BYTES } from '../../../protocol/index.js';
import type { WebSocketFactory } from '../websocket.js';

/**
 * Sockets from `ws`, refusing frames over 1 MiB as the protocol does. `options` go to `ws`
 * as they are (e.g. `ca` for a host serving HTTPS with its own local CA).
 */
export function nodeWebSocketFactory(options: ClientOptions = {}): WebSocketFactory {
  return (url) => new WebSocket(url, { maxPayload: MAX_FRAME_BYTES, ...options });
}
