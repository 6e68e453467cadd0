/**
 * The primitives a channel runs on (docs/protocol.md §4 and §5): Ed25519 signatures, X25519
 * and the XSalsa20-Poly1305 secretbox, behind one interface. Browsers use tweetnacl (a
 * plain-HTTP LAN origin is not a secure context, so WebCrypto may be missing); the host and
 * the Node client pass a native one (pairing/node). Every implementation gives the same bytes.
 */
import nacl from 'tweetnacl';

export interface ChannelCrypto {
  /** What the host logs at start: which implementation it runs. */
  readonly name: string;
  /** The Ed25519 key pair of a 32-byte seed: `secretKey` is seed ‖ public key (64 bytes). */
  keyPairFromSeed(seed: Uint8Array): { publicKey: Uint8Array; secretKey: Uint8Array };
  /** Ed25519 signature of `message` by the 64-byte secret key (seed ‖ public key). */
  sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array;
  /** False for a bad signature and for a signature or key of the wrong length. */
  verify(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean;
  /** The X25519 public key of a 32-byte secret key. */
  scalarMultBase(secretKey: Uint8Array): Uint8Array;
  /**
   * X25519(secretKey, publicKey). A low-order point gives all zeros here rather than an
   * error, whatever the implementation does with it: the caller refuses all zeros.
   */
  scalarMult(secretKey: Uint8Array, publicKey: Uint8Array): Uint8Array;
  /** `secretbox(plaintext, nonce, key)`: the 16-byte tag, then the ciphertext. */
  secretbox(plaintext: Uint8Array, nonce: Uint8Array, key: Uint8Array): Uint8Array;
  /** The plaintext, or null when the box does not open. */
  secretboxOpen(box: Uint8Array, nonce: Uint8Array, key: Uint8Array): Uint8Array | null;
  /**
   * SHA-256 and HKDF-SHA256 (RFC 5869) in native code; without them the key schedule runs
   * @noble/hashes (pure JavaScript, the same bytes).
   */
  readonly hashes?: ChannelHashes;
}

export interface ChannelHashes {
  sha256(data: Uint8Array): Uint8Array;
  hkdfSha256(ikm: Uint8Array, salt: Uint8Array, info: Uint8Array, length: number): Uint8Array;
}

const SIGNATURE_BYTES = 64;
const PUBLIC_KEY_BYTES = 32;

/** tweetnacl: pure JavaScript, the same on every platform. */
export const pureJsCrypto: ChannelCrypto = {
  name: 'tweetnacl (pure JavaScript)',
  keyPairFromSeed: (seed) => nacl.sign.keyPair.fromSeed(seed),
  sign: (message, secretKey) => nacl.sign.detached(message, secretKey),
  verify: (message, signature, publicKey) =>
    signature.length === SIGNATURE_BYTES &&
    publicKey.length === PUBLIC_KEY_BYTES &&
    nacl.sign.detached.verify(message, signature, publicKey),
  scalarMultBase: (secretKey) => nacl.scalarMult.base(secretKey),
  scalarMult: (secretKey, publicKey) => nacl.scalarMult(secretKey, publicKey),
  secretbox: (plaintext, nonce, key) => nacl.secretbox(plaintext, nonce, key),
  secretboxOpen: (box, nonce, key) => nacl.secretbox.open(box, nonce, key),
};
