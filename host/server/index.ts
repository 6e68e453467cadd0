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
export { ChannelServer } from './channel-server.js';
export type { ChannelServerOptions } from './channel-server.js';
export { guardConnections, httpServerOptions } from './http-guard.js';
export { DEFAULT_HTTP_LIMITS } from './server-limits.js';
export type { ChannelLimits, HttpLimits } from './server-limits.js';
export type { RateLimit } from './rate-limiter.js';
export {
  AdminFile,
  adminFilePath,
  readAdminFile,
  removeAdminFile,
  writeAdminFile,
} from './admin-file.js';
