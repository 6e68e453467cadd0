/**
 * host/server/: the HTTP app (health, downloads, local CA, admin, the PWA's files) and the
 * encrypted WebSocket channel.
 */
export { createHttpApp } from './http-app.js';
export { DownloadLinks } from './download-links.js';
export { defaultAppDir } from './static-files.js';
export { ChannelServer } from './channel-server.js';
export { guardConnections, httpServerOptions } from './http-guard.js';
export { httpRequestListener } from './http-listener.js';
export { DEFAULT_HTTP_LIMITS } from './server-limits.js';
export type { ChannelLimits, HttpLimits } from './server-limits.js';
export { AdminFile, readAdminFile, removeAdminFile, writeAdminFile } from './admin-file.js';
