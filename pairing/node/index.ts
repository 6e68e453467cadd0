/**
 * pairing/node: the channel's primitives in native code, for the host and the Node client
 * (browsers keep pairing's tweetnacl). Same bytes as tweetnacl for every protocol vector.
 */
import type { ChannelCrypto } from '../channel-crypto.js';
import { opensslCrypto } from './openssl-crypto.js';
import { loadSodiumCrypto } from './sodium-crypto.js';

let loaded: { crypto: ChannelCrypto; sodiumError?: string } | undefined;

/**
 * libsodium when sodium-native loads on this platform, else OpenSSL's Ed25519 and X25519
 * with a pure-JavaScript secretbox; `sodiumError` says why libsodium did not load.
 */
export function nativeChannelCrypto(): { crypto: ChannelCrypto; sodiumError?: string } {
  if (loaded !== undefined) return loaded;
  try {
    loaded = { crypto: loadSodiumCrypto() };
  } catch (error) {
    loaded = { crypto: opensslCrypto(), sodiumError: String(error) };
  }
  return loaded;
}
