/**
 * The browser's own WebSocket as the client's socket.
 */
import type { WebSocketFactory } from '../websocket.js';

/** Opens the browser's `WebSocket` (the core sets `binaryType` itself). */
export const browserWebSocketFactory: WebSocketFactory = (url) => new WebSocket(url);
