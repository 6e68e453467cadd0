/**
 * host/server/: the HTTP app (health, downloads, local CA, admin, the PWA's files) and the
 * encrypted WebSocket channel.
 */
export { createHostServer } from './host-server.js';
export type { ChannelLimits, HttpLimits } from './server-limits.js';
export { AdminFile, readAdminFile, removeAdminFile, writeAdminFile } from './admin-file.js';
