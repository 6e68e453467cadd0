/**
 * host/server/: the HTTP app (health, downloads, local CA, admin, the PWA's files) and the
 * encrypted WebSocket channel.
 */
export { createHttpApp } from './http-app.js';
export type { HttpAppOptions, LocalCaDownloads } from './http-app.js';
export { DOWNLOAD_LINK_TTL_MS, DownloadLinks } from './download-links.js';
export type { DownloadFile, DownloadLinksOptions } from './download-links.js';
export { requestOrigin, servesDownloads } from './download-origin.js';
export type { RequestOrigin } from './download-origin.js';
export { APP_SECURITY_HEADERS, defaultAppDir } from './static-files.js';
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
