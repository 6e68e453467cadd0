/**
 * host/identity: the host's Ed25519 identity, kept in the macOS Keychain or a 0600 file.
 */

export { loadOrCreateHostIdentity } from './load-host-identity.js';
export { loadOrCreatePushKeys } from './load-push-keys.js';
export {
  loadEndpointKey,
  removeEndpointKey,
  storeEndpointKey,
  withStoredKeys,
} from './endpoint-keys.js';
export type { PushKeys } from './types.js';
export { readPrivateFile } from './private-file.js';
export { readKeychainItem } from './security-keychain.js';
