/**
 * host/identity: the host's Ed25519 identity, kept in the macOS Keychain or a 0600 file.
 */
export { hostKeyFilePath } from './host-key-file.js';
export { loadOrCreateHostIdentity } from './load-host-identity.js';
export { securityKeychain } from './security-keychain.js';
export type { HostIdentity, HostKeyKeychain, LoadHostIdentityOptions } from './types.js';
