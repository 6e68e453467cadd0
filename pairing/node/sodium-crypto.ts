/**
 * The channel's primitives through libsodium (sodium-native's prebuilt binaries, no install
 * script): the fastest of the implementations bench/crypto.ts compares, for every one of them.
 */
import { createRequire } from 'node:module';
import type { ChannelCrypto } from '../channel-crypto.js';
import { nativeHashes } from './native-hashes.js';

/** The part of sodium-native's API the channel uses (the package ships no types). */
interface Sodium {
  crypto_sign_seed_keypair(publicKey: Uint8Array, secretKey: Uint8Array, seed: Uint8Array): void;
  crypto_sign_detached(signature: Uint8Array, message: Uint8Array, secretKey: Uint8Array): void;
  crypto_sign_verify_detached(
    signature: Uint8Array,
    message: Uint8Array,
    publicKey: Uint8Array,
  ): boolean;
  crypto_scalarmult_base(publicKey: Uint8Array, secretKey: Uint8Array): void;
  crypto_scalarmult(shared: Uint8Array, secretKey: Uint8Array, publicKey: Uint8Array): void;
  crypto_secretbox_easy(
    box: Uint8Array,
    plaintext: Uint8Array,
    nonce: Uint8Array,
    key: Uint8Array,
  ): void;
  crypto_secretbox_open_easy(
    plaintext: Uint8Array,
    box: Uint8Array,
    nonce: Uint8Array,
    key: Uint8Array,
  ): boolean;
}

const TAG_BYTES = 16;
const KEY_BYTES = 32;
const NONCE_BYTES = 24;

/** Throws when sodium-native or its binary for this platform does not load. */
export function loadSodiumCrypto(): ChannelCrypto {
  const sodium = createRequire(import.meta.url)('sodium-native') as Sodium;
  return {
    name: 'libsodium (sodium-native)',
    hashes: nativeHashes,
    keyPairFromSeed(seed) {
      const publicKey = new Uint8Array(32);
      const secretKey = new Uint8Array(64);
      sodium.crypto_sign_seed_keypair(publicKey, secretKey, seed);
      return { publicKey, secretKey };
    },
    sign(message, secretKey) {
      const signature = new Uint8Array(64);
      sodium.crypto_sign_detached(signature, message, secretKey);
      return signature;
    },
    verify: (message, signature, publicKey) =>
      signature.length === 64 &&
      publicKey.length === 32 &&
      sodium.crypto_sign_verify_detached(signature, message, publicKey),
    scalarMultBase(secretKey) {
      const publicKey = new Uint8Array(32);
      sodium.crypto_scalarmult_base(publicKey, secretKey);
      return publicKey;
    },
    scalarMult(secretKey, publicKey) {
      const shared = new Uint8Array(32);
      try {
        sodium.crypto_scalarmult(shared, secretKey, publicKey);
      } catch {
        // libsodium refuses a low-order point; the caller refuses the all-zero result.
        shared.fill(0);
      }
      return shared;
    },
    secretbox(plaintext, nonce, key) {
      const box = new Uint8Array(plaintext.length + TAG_BYTES);
      sodium.crypto_secretbox_easy(box, plaintext, nonce, key);
      return box;
    },
    secretboxOpen(box, nonce, key) {
      if (box.length < TAG_BYTES || nonce.length !== NONCE_BYTES || key.length !== KEY_BYTES) {
        return null;
      }
      const plaintext = new Uint8Array(box.length - TAG_BYTES);
      return sodium.crypto_secretbox_open_easy(plaintext, box, nonce, key) ? plaintext : null;
    },
  };
}
