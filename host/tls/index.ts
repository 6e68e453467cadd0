/**
 * host/tls/: the local CA and TLS server certificate of `tether start --https`, and the
 * iOS profile that lets a phone trust it.
 */

export { loadOrCreateLocalTls } from './local-ca.js';
export type { LocalTls } from './local-ca.js';
export { localHostName, serverNames } from './server-names.js';
