import { chmodSync, existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import nacl from 'tweetnacl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadOrCreateHostIdentity } from '../../host/identity/index.js';
import { hostKeyFilePath } from '../../host/identity/testing.js';
import type { HostKeyKeychain } from '../../host/identity/testing.js';
import { b64u, utf8 } from '../../protocol/index.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

let dataTemp: TempDir;
let dataDir: string;

beforeEach(() => {
  dataTemp = tempDir('tether-identity-');
  dataDir = dataTemp.path;
});

afterEach(() => {
  dataTemp.remove();
});

/** An in-memory Keychain; `failWith` makes every call reject, like a locked Keychain. */
function fakeKeychain(failWith?: string): HostKeyKeychain & { items: Map<string, string> } {
  const items = new Map<string, string>();
  const fail = () => Promise.reject(new Error(failWith));
  return {
    items,
    read: (service) => (failWith ? fail() : Promise.resolve(items.get(service) ?? null)),
    write: (service, secret) => {
      if (failWith) return fail();
      items.set(service, secret);
      return Promise.resolve();
    },
    remove: (service) => (failWith ? fail() : Promise.resolve(items.delete(service))),
  };
}

describe('host key file (Linux, or no Keychain)', () => {
  it('is made once with mode 0600, then reloaded with the same identity', async () => {
    const first = await loadOrCreateHostIdentity({ dataDir, platform: 'linux' });
    const path = hostKeyFilePath(dataDir);
    expect(first).toMatchObject({ created: true, store: 'file' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(first.hostId).toBe(b64u(sha256(first.hostPk).subarray(0, 16)));
    expect(first.hostId).toHaveLength(22);
    expect(first.hostSk).toHaveLength(64);
    const stored: unknown = JSON.parse(readFileSync(path, 'utf8'));
    expect(stored).toEqual({ v: 1, seed: b64u(first.hostSk.subarray(0, 32)) });

    const second = await loadOrCreateHostIdentity({ dataDir, platform: 'linux' });
    expect(second).toMatchObject({ created: false, store: 'file', hostId: first.hostId });
    expect(second.hostSk).toEqual(first.hostSk);
    const signature = nacl.sign.detached(utf8('hello'), second.hostSk);
    expect(nacl.sign.detached.verify(utf8('hello'), signature, first.hostPk)).toBe(true);
  });

  it('refuses a key file others may read', async () => {
    await loadOrCreateHostIdentity({ dataDir, platform: 'linux' });
    chmodSync(hostKeyFilePath(dataDir), 0o644);
    await expect(loadOrCreateHostIdentity({ dataDir, platform: 'linux' })).rejects.toThrow(
      /has mode 0644.*must be 0600.*chmod 600/,
    );
  });

  it('refuses a corrupt key file without replacing it', async () => {
    const path = hostKeyFilePath(dataDir);
    writeFileSync(path, '{"v":1,"seed":"c2hvcnQ"}', { mode: 0o600 });
    await expect(loadOrCreateHostIdentity({ dataDir, platform: 'linux' })).rejects.toThrow(
      `host key file ${path} is corrupt (seed: expected base64url of 32 bytes)`,
    );
    writeFileSync(path, 'not json');
    await expect(loadOrCreateHostIdentity({ dataDir, platform: 'linux' })).rejects.toThrow(
      /is corrupt \(not JSON\)/,
    );
    expect(readFileSync(path, 'utf8')).toBe('not json');
  });

  it('refuses a key file that is a symbolic link', async () => {
    const elsewhere = join(dataDir, 'elsewhere.json');
    writeFileSync(elsewhere, '{}', { mode: 0o600 });
    symlinkSync(elsewhere, hostKeyFilePath(dataDir));
    await expect(loadOrCreateHostIdentity({ dataDir, platform: 'linux' })).rejects.toThrow(
      /is a symbolic link/,
    );
  });

  it('ignores a Keychain on other platforms', async () => {
    const keychain = fakeKeychain();
    const identity = await loadOrCreateHostIdentity({ dataDir, platform: 'linux', keychain });
    expect(identity.store).toBe('file');
    expect(keychain.items.size).toBe(0);
  });
});

describe('macOS Keychain', () => {
  it('keeps a new key in the Keychain, not in a file, and reloads it', async () => {
    const keychain = fakeKeychain();
    const first = await loadOrCreateHostIdentity({ dataDir, platform: 'darwin', keychain });
    expect(first).toMatchObject({ created: true, store: 'keychain' });
    expect([...keychain.items]).toEqual([
      [`Tether host key (${dataDir})`, b64u(first.hostSk.subarray(0, 32))],
    ]);
    expect(existsSync(hostKeyFilePath(dataDir))).toBe(false);

    const second = await loadOrCreateHostIdentity({ dataDir, platform: 'darwin', keychain });
    expect(second).toMatchObject({ created: false, store: 'keychain', hostId: first.hostId });
  });

  it('keeps using a key file made before, when the Keychain has no item', async () => {
    const made = await loadOrCreateHostIdentity({ dataDir, platform: 'darwin', keychain: null });
    expect(made.store).toBe('file');
    const keychain = fakeKeychain();
    const loaded = await loadOrCreateHostIdentity({ dataDir, platform: 'darwin', keychain });
    expect(loaded).toMatchObject({ created: false, store: 'file', hostId: made.hostId });
    expect(keychain.items.size).toBe(0);
  });

  it('fails clearly, making nothing, when the Keychain cannot be read', async () => {
    const keychain = fakeKeychain('User interaction is not allowed.');
    await expect(
      loadOrCreateHostIdentity({ dataDir, platform: 'darwin', keychain }),
    ).rejects.toThrow(/cannot read the host key from the macOS Keychain.*TETHER_KEY_STORE=file/);
    expect(existsSync(hostKeyFilePath(dataDir))).toBe(false);
  });

  it('refuses a Keychain item that is not a host key', async () => {
    const keychain = fakeKeychain();
    keychain.items.set(`Tether host key (${dataDir})`, 'not-a-seed');
    await expect(
      loadOrCreateHostIdentity({ dataDir, platform: 'darwin', keychain }),
    ).rejects.toThrow(/does not hold a Tether host key/);
  });
});
