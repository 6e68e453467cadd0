/**
 * host/server/: the HTTP app (health, admin) and the encrypted WebSocket channel.
 */
export { createHttpApp } from './http-app.js';
export type { HttpAppOptions } from './http-app.js';
export {
  ChannelServer,
  HANDSHAKE_TIMEOUT_MS,
  MAX_HANDSHAKES_PER_ADDRESS,
} from './channel-server.js';
export type { ChannelServerOptions } from './channel-server.js';
export {
  AdminFile,
  adminFilePath,
  readAdminFile,
  removeAdminFile,
  writeAdminFile,
} from './admin-file.js';
