/**
 * host/server/: HTTP and, later, the encrypted WebSocket channel.
 */
export { createHttpApp } from './http-app.js';
export type { HttpAppOptions } from './http-app.js';
