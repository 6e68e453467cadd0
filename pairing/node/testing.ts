/**
 * pairing/node/testing: each native implementation on its own, for the tests that hold it
 * to the protocol vectors. Production code takes {@link nativeChannelCrypto} (./index.ts).
 */
export { opensslCrypto } from './openssl-crypto.js';
export { loadSodiumCrypto } from './sodium-crypto.js';
export { nativeHashes } from './native-hashes.js';
