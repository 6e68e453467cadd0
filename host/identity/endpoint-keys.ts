/**
 * The API keys of the endpoints the host calls: the model's (`tether model set-key`) and
 * the transcription endpoint's (`tether voice set --key-stdin`). Each is kept like the
 * host key: the macOS Keychain item `Tether <kind> key (<dataDir>)`, or
 * `<dataDir>/<kind>-key.json` (0600) elsewhere or with `TETHER_KEY_STORE=file`. The host
 * reads them at start, so a service needs no key in its environment.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { HostConfig } from '../config/index.js';
import { TetherError } from '../../protocol/index.js';
import { keychainFor } from './load-host-identity.js';
import { readSecretFile, writeSecretFile } from './secret-file.js';
import type { LoadHostIdentityOptions } from './types.js';

/** Whose key: the model endpoint's or the transcription endpoint's. */
export type EndpointKeyKind = 'model' | 'voice';

export function endpointKeyFilePath(kind: EndpointKeyKind, dataDir: string): string {
  return join(dataDir, `${kind}-key.json`);
}

const serviceName = (kind: EndpointKeyKind, dataDir: string) => `Tether ${kind} key (${dataDir})`;

const ENV_OF: Record<EndpointKeyKind, string> = {
  model: 'or set TETHER_MODEL_API_KEY',
  voice: 'or store the key again with TETHER_KEY_STORE=file',
};

/** Where a stored key is. */
export interface StoredEndpointKey {
  key: string;
  /** `the macOS Keychain`, or the file's path. */
  where: string;
}

/**
 * The stored key of `kind`: the Keychain item first (on macOS with a Keychain), then the
 * file; null when neither holds one.
 *
 * @throws TetherError (`internal`) when the Keychain cannot be read or the file is unsafe.
 */
export async function loadEndpointKey(
  kind: EndpointKeyKind,
  options: LoadHostIdentityOptions,
): Promise<StoredEndpointKey | null> {
  const keychain = keychainFor(options);
  if (keychain !== null) {
    let key: string | null;
    try {
      key = await keychain.read(serviceName(kind, options.dataDir), options.signal);
    } catch (cause) {
      throw new TetherError(
        'internal',
        `cannot read the ${kind} key from the macOS Keychain: unlock the login keychain and ` +
          `start again, ${ENV_OF[kind]}`,
        { cause },
      );
    }
    if (key !== null && key !== '') return { key, where: 'the macOS Keychain' };
  }
  const path = endpointKeyFilePath(kind, options.dataDir);
  const key = readSecretFile(path, `${kind} key`);
  return key === null ? null : { key, where: path };
}

/**
 * Stores `key` of `kind` (replacing one): in the Keychain on macOS with a Keychain, else
 * in the 0600 file. Resolves with where it went, for the message.
 */
export async function storeEndpointKey(
  kind: EndpointKeyKind,
  options: LoadHostIdentityOptions,
  key: string,
): Promise<string> {
  const keychain = keychainFor(options);
  if (keychain !== null) {
    try {
      await keychain.write(serviceName(kind, options.dataDir), key, options.signal);
    } catch (cause) {
      throw new TetherError(
        'internal',
        `cannot store the ${kind} key in the macOS Keychain: unlock the login keychain and ` +
          'try again, or set TETHER_KEY_STORE=file to keep it in a 0600 file',
        { cause },
      );
    }
    return `the macOS Keychain (item "${serviceName(kind, options.dataDir)}")`;
  }
  const path = endpointKeyFilePath(kind, options.dataDir);
  writeSecretFile(path, key);
  return path;
}

/**
 * Removes the stored key of `kind` from the Keychain and the file, wherever it is.
 * Resolves with whether there was one.
 */
export async function removeEndpointKey(
  kind: EndpointKeyKind,
  options: LoadHostIdentityOptions,
): Promise<boolean> {
  const keychain = keychainFor(options);
  let removed = false;
  if (keychain !== null) {
    try {
      removed = await keychain.remove(serviceName(kind, options.dataDir), options.signal);
    } catch (cause) {
      throw new TetherError(
        'internal',
        `cannot remove the ${kind} key from the macOS Keychain: unlock the login keychain and try again`,
        { cause },
      );
    }
  }
  const path = endpointKeyFilePath(kind, options.dataDir);
  if (readSecretFile(path, `${kind} key`) !== null) {
    rmSync(path);
    removed = true;
  }
  return removed;
}

/**
 * `config` with the stored keys filled in: the model's when a model is configured without
 * one (the environment and the config file win: their key is already in `config`), the
 * transcription endpoint's when one is configured.
 */
export async function withStoredKeys(
  config: HostConfig,
  platform: NodeJS.Platform,
): Promise<HostConfig> {
  const options = {
    dataDir: config.dataDir,
    platform,
    ...(config.keyStore === 'file' ? { keychain: null } : {}),
  };
  let filled = config;
  if (config.model !== null && config.model.apiKey === undefined) {
    const stored = await loadEndpointKey('model', options);
    if (stored !== null) filled = { ...filled, model: { ...config.model, apiKey: stored.key } };
  }
  if (config.voice !== null) {
    const stored = await loadEndpointKey('voice', options);
    if (stored !== null) filled = { ...filled, voice: { ...config.voice, apiKey: stored.key } };
  }
  return filled;
}
