/**
 * The source of randomness for keys and nonces, injectable so tests can replay vectors.
 */
import nacl from 'tweetnacl';

/** Returns `length` fresh random bytes; each call returns a new array the callee may zero. */
export type RandomBytes = (length: number) => Uint8Array;

/** tweetnacl's CSPRNG: `crypto.getRandomValues` in browsers, `node:crypto` in Node. */
export const secureRandomBytes: RandomBytes = (length) => nacl.randomBytes(length);
