/**
 * The model account's API key, kept like the host key: the macOS Keychain item
 * `Tether model key (<dataDir>)`, or `<dataDir>/model-key.json` (0600) elsewhere or with
 * `TETHER_KEY_STORE=file`. `tether model set-key` stores it; the host reads it at start,
 * so a service needs no key in its environment.
 */
import { join } from 'node:path';
import type { HostConfig } from '../config/index.js';
import { TetherError } from '../../protocol/index.js';
import { keychainFor } from './load-host-identity.js';
import { readSecretFile, writeSecretFile } from './secret-file.js';
import type { LoadHostIdentityOptions } from './types.js';

const LABEL = 'model key';

export function modelKeyFilePath(dataDir: string): string {
  return join(dataDir, 'model-key.json');
}

const serviceName = (dataDir: string) => `Tether model key (${dataDir})`;

/** Where a stored model key is. */
export interface StoredModelKey {
  key: string;
  /** `keychain`, or the file's path. */
  where: string;
}

/**
 * The stored model key: the Keychain item first (on macOS with a Keychain), then the
 * file; null when neither holds one.
 *
 * @throws TetherError (`internal`) when the Keychain cannot be read or the file is unsafe.
 */
async function loadModelKey(options: LoadHostIdentityOptions): Promise<StoredModelKey | null> {
  const keychain = keychainFor(options);
  if (keychain !== null) {
    let key: string | null;
    try {
      key = await keychain.read(serviceName(options.dataDir), options.signal);
    } catch (cause) {
      throw new TetherError(
        'internal',
        'cannot read the model key from the macOS Keychain: unlock the login keychain and ' +
          'start again, or set TETHER_MODEL_API_KEY',
        { cause },
      );
    }
    if (key !== null && key !== '') return { key, where: 'the macOS Keychain' };
  }
  const path = modelKeyFilePath(options.dataDir);
  const key = readSecretFile(path, LABEL);
  return key === null ? null : { key, where: path };
}

/**
 * Stores `key` (replacing one): in the Keychain on macOS with a Keychain, else in the
 * 0600 file. Resolves with where it went, for the message.
 */
export async function storeModelKey(
  options: LoadHostIdentityOptions,
  key: string,
): Promise<string> {
  const keychain = keychainFor(options);
  if (keychain !== null) {
    try {
      await keychain.write(serviceName(options.dataDir), key, options.signal);
    } catch (cause) {
      throw new TetherError(
        'internal',
        'cannot store the model key in the macOS Keychain: unlock the login keychain and ' +
          'try again, or set TETHER_KEY_STORE=file to keep it in a 0600 file',
        { cause },
      );
    }
    return `the macOS Keychain (item "${serviceName(options.dataDir)}")`;
  }
  const path = modelKeyFilePath(options.dataDir);
  writeSecretFile(path, key);
  return path;
}

/**
 * `config` with the stored model key filled in when a model is configured without one
 * (the environment and the config file win: their key is already in `config`).
 */
export async function withStoredModelKey(
  config: HostConfig,
  platform: NodeJS.Platform,
): Promise<HostConfig> {
  if (config.model === null || config.model.apiKey !== undefined) return config;
  const stored = await loadModelKey({
    dataDir: config.dataDir,
    platform,
    ...(config.keyStore === 'file' ? { keychain: null } : {}),
  });
  if (stored === null) return config;
  return { ...config, model: { ...config.model, apiKey: stored.key } };
}
