/**
 * Contracts of the host's identity (docs/protocol.md §1).
 */
import type { KeyStore } from '../config/index.js';

/** The host's Ed25519 key pair and the id devices know it by. */
export interface HostIdentity {
  hostPk: Uint8Array;
  /**
   * The 64-byte tweetnacl secret key. Its first 32 bytes are the seed that is stored:
   * register them with the logger (`logger.registerSecret(hostSk.subarray(0, 32))`).
   */
  hostSk: Uint8Array;
  /** `b64u(SHA256(hostPk)[0:16])`, 22 characters. */
  hostId: string;
  /** True on the first start, when the key was made just now. */
  created: boolean;
  /** Where the seed is kept. */
  store: KeyStore;
}

/**
 * The Keychain operations the host needs, on generic-password items of one fixed account.
 * The real one drives `/usr/bin/security`; tests pass a small in-memory fake.
 */
export interface HostKeyKeychain {
  /**
   * The secret stored under `service`, or null when there is no such item.
   * Rejects when the Keychain cannot be read (locked, no login session).
   */
  read(service: string, signal?: AbortSignal): Promise<string | null>;
  /** Stores `secret` under `service` (replacing it) and confirms it reads back. */
  write(service: string, secret: string, signal?: AbortSignal): Promise<void>;
  /** Removes the item of `service`; resolves with whether there was one. */
  remove(service: string, signal?: AbortSignal): Promise<boolean>;
}

export interface LoadHostIdentityOptions {
  /** Absolute path of an existing data directory. */
  dataDir: string;
  platform: NodeJS.Platform;
  /**
   * macOS only (ignored elsewhere): the Keychain to keep a new key in; by default the
   * `security` command when it exists. Null keeps it in `<dataDir>/host-key.json`.
   */
  keychain?: HostKeyKeychain | null;
  signal?: AbortSignal;
}

/** The host's VAPID key pair for Web Push (docs/push.md), both base64url. */
export interface PushKeys {
  /** The 65-byte uncompressed P-256 point: `host.info.push.vapidPublicKey`. */
  publicKey: string;
  /** The 32-byte scalar. Secret: register it with the logger. */
  privateKey: string;
  /** True on the first start, when the key was made just now. */
  created: boolean;
}
