/**
 * The host's identity: made once on the first start, then loaded.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import { b64u, isB64uOfLength, fromB64u, TetherError } from '../../protocol/index.js';
import { nativeChannelCrypto } from '../../pairing/node/index.js';
import { createHostKeyFile, hostKeyFilePath, readHostKeyFile } from './host-key-file.js';
import { securityKeychain } from './security-keychain.js';
import type { HostIdentity, HostKeyKeychain, LoadHostIdentityOptions } from './types.js';

const SECURITY_COMMAND = '/usr/bin/security';

/** The Keychain a key is kept in: on macOS the given one or `security`; elsewhere none. */
export function keychainFor(options: LoadHostIdentityOptions): HostKeyKeychain | null {
  const keychain = options.platform === 'darwin' ? options.keychain : null;
  if (keychain !== undefined) return keychain;
  return existsSync(SECURITY_COMMAND) ? securityKeychain(SECURITY_COMMAND) : null;
}

/**
 * Loads the host key, or makes it on the first start. On macOS with a Keychain the
 * Keychain item `Tether host key (<dataDir>)` is looked up first, then the key file; a
 * new key goes to the Keychain. Elsewhere, or with `keychain: null`, only the key file
 * `<dataDir>/host-key.json` (0600) is used.
 *
 * A Keychain that cannot be read or written is an error, never a reason to make a second
 * identity or to fall back silently: the message says how to continue.
 *
 * @throws TetherError (`internal`) with a message for people.
 */
export async function loadOrCreateHostIdentity(
  options: LoadHostIdentityOptions,
): Promise<HostIdentity> {
  const { dataDir, signal } = options;
  const keychain = keychainFor(options);
  const service = `Tether host key (${dataDir})`;
  const path = hostKeyFilePath(dataDir);
  const advice =
    'Unlock the login keychain and start again, or set TETHER_KEY_STORE=file to keep the ' +
    `key in ${path} instead (that makes a new host identity: devices must pair again).`;

  if (keychain !== null) {
    let text: string | null;
    try {
      text = await keychain.read(service, signal);
    } catch (cause) {
      const message = `cannot read the host key from the macOS Keychain. ${advice}`;
      throw new TetherError('internal', message, { cause });
    }
    if (text !== null) {
      if (!isB64uOfLength(text, 32)) {
        throw new TetherError(
          'internal',
          `the Keychain item "${service}" does not hold a Tether host key; delete it to make a new one`,
        );
      }
      return identityFromSeed(fromB64u(text), false, 'keychain');
    }
  }

  const stored = readHostKeyFile(path);
  if (stored !== null) return identityFromSeed(stored, false, 'file');

  const seed = new Uint8Array(randomBytes(32));
  if (keychain !== null) {
    try {
      await keychain.write(service, b64u(seed), signal);
    } catch (cause) {
      const message = `cannot store the host key in the macOS Keychain. ${advice}`;
      throw new TetherError('internal', message, { cause });
    }
    return identityFromSeed(seed, true, 'keychain');
  }
  if (createHostKeyFile(path, seed)) return identityFromSeed(seed, true, 'file');
  // Another process created it between our read and our create: use theirs.
  const theirs = readHostKeyFile(path);
  if (theirs === null) throw new TetherError('internal', `host key file ${path} vanished`);
  return identityFromSeed(theirs, false, 'file');
}

function identityFromSeed(
  seed: Uint8Array,
  created: boolean,
  store: HostIdentity['store'],
): HostIdentity {
  // Native: tweetnacl took ~30 ms of every start here and left ~40 MB of garbage behind.
  const { publicKey, secretKey } = nativeChannelCrypto().crypto.keyPairFromSeed(seed);
  const hostId = b64u(sha256(publicKey).subarray(0, 16));
  return { hostPk: publicKey, hostSk: secretKey, hostId, created, store };
}
