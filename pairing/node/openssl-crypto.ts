/**
 * The channel's primitives when libsodium does not load: Ed25519 and X25519 through
 * node:crypto (OpenSSL), the secretbox in pure JavaScript (OpenSSL has no XSalsa20).
 */
import {
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { type ChannelCrypto, pureJsCrypto } from '../channel-crypto.js';
import { nativeHashes } from './native-hashes.js';

// DER prefixes of RFC 8410 keys: PKCS#8 for a 32-byte secret, SPKI for a 32-byte public key.
const ED25519_PKCS8 = Buffer.from('302e020100300506032b657004220420', 'hex');
const X25519_PKCS8 = Buffer.from('302e020100300506032b656e04220420', 'hex');
const X25519_SPKI = Buffer.from('302a300506032b656e032100', 'hex');

/** Device keys verified most recently; a flood of hellos naming one device reuses its key. */
const VERIFY_KEYS_KEPT = 256;

function privateKey(prefix: Buffer, secret: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([prefix, secret]), format: 'der', type: 'pkcs8' });
}

const jwkX = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

export function opensslCrypto(): ChannelCrypto {
  const verifyKeys = new Map<string, KeyObject>();
  const verifyKey = (publicKey: Uint8Array): KeyObject => {
    const x = jwkX(publicKey);
    let key = verifyKeys.get(x);
    if (key === undefined) {
      key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
      if (verifyKeys.size >= VERIFY_KEYS_KEPT) verifyKeys.delete(verifyKeys.keys().next().value!);
      verifyKeys.set(x, key);
    }
    return key;
  };
  return {
    name: 'OpenSSL (node:crypto) with a pure-JavaScript secretbox',
    hashes: nativeHashes,
    keyPairFromSeed(seed) {
      const { x } = createPublicKey(privateKey(ED25519_PKCS8, seed)).export({ format: 'jwk' });
      const publicKey = new Uint8Array(Buffer.from(x!, 'base64url'));
      const secretKey = new Uint8Array(64);
      secretKey.set(seed);
      secretKey.set(publicKey, 32);
      return { publicKey, secretKey };
    },
    sign: (message, secretKey) =>
      new Uint8Array(sign(null, message, privateKey(ED25519_PKCS8, secretKey.subarray(0, 32)))),
    verify(message, signature, publicKey) {
      if (signature.length !== 64 || publicKey.length !== 32) return false;
      try {
        return verify(null, message, verifyKey(publicKey), signature);
      } catch {
        return false;
      }
    },
    scalarMultBase(secretKey) {
      const { x } = createPublicKey(privateKey(X25519_PKCS8, secretKey)).export({ format: 'jwk' });
      return new Uint8Array(Buffer.from(x!, 'base64url'));
    },
    scalarMult(secretKey, publicKey) {
      try {
        const peer = createPublicKey({
          key: Buffer.concat([X25519_SPKI, publicKey]),
          format: 'der',
          type: 'spki',
        });
        const shared = diffieHellman({
          privateKey: privateKey(X25519_PKCS8, secretKey),
          publicKey: peer,
        });
        return new Uint8Array(shared);
      } catch {
        // OpenSSL refuses a low-order point; the caller refuses the all-zero result.
        return new Uint8Array(32);
      }
    },
    secretbox: (plaintext, nonce, key) => pureJsCrypto.secretbox(plaintext, nonce, key),
    secretboxOpen: (box, nonce, key) => pureJsCrypto.secretboxOpen(box, nonce, key),
  };
}
