/**
 * host/identity/testing: names the tests use that production code does not. Production code
 * never imports this module (eslint.config.js); the public face is ./index.ts.
 */
export type { HostKeyKeychain } from './types.js';
export { hostKeyFilePath } from './host-key-file.js';
export { securityKeychain } from './security-keychain.js';
export { endpointKeyFilePath } from './endpoint-keys.js';
