/**
 * host/tls/testing: names the tests use that production code does not. Production code
 * never imports this module (eslint.config.js); the public face is ./index.ts.
 */
export { MAX_SERVER_VALIDITY_DAYS } from './certificates.js';
export { tlsDir } from './local-ca.js';
