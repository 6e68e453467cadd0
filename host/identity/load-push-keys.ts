/**
 * The host's VAPID key pair (RFC 8292) for Web Push: a P-256 key made on the first start and
 * kept like the host key, in the macOS Keychain or `<dataDir>/push-key.json` (0600).
 */
import { createECDH } from 'node:crypto';
import { join } from 'node:path';
import { b64u, fromB64u, isB64uOfLength, TetherError } from '../../protocol/index.js';
import { createHostKeyFile, readHostKeyFile } from './host-key-file.js';
import type { LoadHostIdentityOptions, PushKeys } from './types.js';
import { keychainFor } from './load-host-identity.js';

/** The push key's scalar → the key pair; throws on a scalar that is not a valid P-256 key. */
function pushKeysFrom(privateKey: Uint8Array, created: boolean): PushKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(privateKey);
  return {
    publicKey: b64u(ecdh.getPublicKey()),
    privateKey: b64u(privateKey),
    created,
  };
}

function newPrivateKey(): Uint8Array {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  // getPrivateKey drops leading zero bytes; VAPID wants exactly 32.
  const raw = ecdh.getPrivateKey();
  const out = new Uint8Array(32);
  out.set(raw, 32 - raw.length);
  return out;
}

/**
 * Loads the VAPID key pair, or makes it on the first start: the Keychain item
 * `Tether push key (<dataDir>)` on macOS with a Keychain, else `<dataDir>/push-key.json`.
 * Options as for the host key; a Keychain that fails is an error, never a fallback.
 *
 * @throws TetherError (`internal`) with a message for people.
 */
export async function loadOrCreatePushKeys(options: LoadHostIdentityOptions): Promise<PushKeys> {
  const { dataDir, signal } = options;
  const keychain = keychainFor(options);
  const service = `Tether push key (${dataDir})`;
  const path = join(dataDir, 'push-key.json');
  const advice =
    'Unlock the login keychain and start again, or set TETHER_KEY_STORE=file (that makes a ' +
    'new host identity: devices must pair again).';
  const refuse = (what: string, cause?: unknown) =>
    new TetherError('internal', `${what}. ${advice}`, { cause });

  if (keychain !== null) {
    let text: string | null;
    try {
      text = await keychain.read(service, signal);
    } catch (cause) {
      throw refuse('cannot read the push key from the macOS Keychain', cause);
    }
    if (text !== null) {
      if (!isB64uOfLength(text, 32)) {
        throw new TetherError(
          'internal',
          `the Keychain item "${service}" does not hold a Tether push key; delete it to make a new one`,
        );
      }
      return pushKeysFrom(fromB64u(text), false);
    }
    const privateKey = newPrivateKey();
    try {
      await keychain.write(service, b64u(privateKey), signal);
    } catch (cause) {
      throw refuse('cannot store the push key in the macOS Keychain', cause);
    }
    return pushKeysFrom(privateKey, true);
  }
  const stored = readHostKeyFile(path, 'push key');
  if (stored !== null) return pushKeysFrom(stored, false);
  const privateKey = newPrivateKey();
  if (createHostKeyFile(path, privateKey, 'push key')) return pushKeysFrom(privateKey, true);
  const theirs = readHostKeyFile(path, 'push key');
  if (theirs === null) throw new TetherError('internal', `push key file ${path} vanished`);
  return pushKeysFrom(theirs, false);
}
