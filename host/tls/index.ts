/**
 * host/tls/: the local CA and TLS server certificate of `tether start --https`, and the
 * iOS profile that lets a phone trust it.
 */
export {
  CA_VALIDITY_DAYS,
  MAX_SERVER_VALIDITY_DAYS,
  PERMITTED_DNS,
  PERMITTED_NETWORKS,
  SERVER_VALIDITY_DAYS,
} from './certificates.js';
export type { ServerNames } from './certificates.js';
export { loadOrCreateLocalTls, RENEW_BEFORE_MS, tlsDir } from './local-ca.js';
export type { LoadLocalTlsOptions, LocalTls } from './local-ca.js';
export { localHostName, serverNames } from './server-names.js';
