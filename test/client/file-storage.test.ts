import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TetherClient } from '../../remote/client/index.js';
import { FileStorage } from '../../remote/client/node/index.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { FakeHost } from './fake-host.js';

let rootDir: TempDir;
let root: string;
beforeEach(() => {
  rootDir = tempDir('tether-client-storage-', { realpath: false });
  root = rootDir.path;
});
afterEach(() => {
  rootDir.remove();
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('FileStorage', () => {
  it('creates its directory 0700 and its file 0600, and reads back what it wrote', async () => {
    const dir = join(root, 'a', 'b');
    const path = join(dir, 'client.json');
    const storage = new FileStorage(path);
    expect(await storage.get('missing')).toBeUndefined();
    await storage.set('hosts', [{ hostId: 'h' }]);
    await storage.set('n', 1);
    expect(modeOf(join(root, 'a'))).toBe(0o700);
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(path)).toBe(0o600);
    const again = new FileStorage(path);
    expect(await again.get('hosts')).toEqual([{ hostId: 'h' }]);
    await again.delete('n');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ hosts: [{ hostId: 'h' }] });
  });

  it('replaces a file of looser mode with a 0600 one', async () => {
    const path = join(root, 'client.json');
    writeFileSync(path, '{"old":true}');
    chmodSync(path, 0o644);
    await new FileStorage(path).set('new', true);
    expect(modeOf(path)).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ old: true, new: true });
  });

  it('loses no write when many run at once, and leaves no temp file behind', async () => {
    const path = join(root, 'client.json');
    const storage = new FileStorage(path);
    await Promise.all(Array.from({ length: 40 }, (_, i) => storage.set(`k${i}`, { i })));
    const stored: unknown = JSON.parse(readFileSync(path, 'utf8'));
    expect(stored).toEqual(
      Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, { i }])),
    );
    expect(readdirSync(root)).toEqual(['client.json']);
  });

  it('leaves the previous file whole when a write fails', async () => {
    const path = join(root, 'client.json');
    const storage = new FileStorage(path);
    await storage.set('kept', 'yes');
    const before = readFileSync(path, 'utf8');
    await expect(storage.set('bad', { n: 1n })).rejects.toThrow(/BigInt/);
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect(readdirSync(root)).toEqual(['client.json']);
    await storage.set('after', 1);
    expect(await storage.get('kept')).toBe('yes');
  });

  it('refuses a file that is not a JSON object instead of overwriting it', async () => {
    const path = join(root, 'client.json');
    writeFileSync(path, '[1, 2');
    const storage = new FileStorage(path);
    await expect(storage.get('x')).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(storage.set('x', 1)).rejects.toMatchObject({ code: 'invalid_request' });
    expect(readFileSync(path, 'utf8')).toBe('[1, 2');
  });

  it('keeps a paired client across restarts', async () => {
    const host = new FakeHost();
    const path = join(root, 'client.json');
    const first = new TetherClient({ storage: new FileStorage(path), socketFactory: host.factory });
    const paired = await first.pair(host.offerLink(), { name: 'cli', platform: 'node' });
    const second = new TetherClient({
      storage: new FileStorage(path),
      socketFactory: host.factory,
    });
    expect(await second.pairedHosts()).toEqual([
      {
        hostId: paired.hostId,
        hostName: 'Fake Mac',
        origin: 'http://fake-host.test',
        deviceId: paired.deviceId,
      },
    ]);
    expect(modeOf(path)).toBe(0o600);
  });
});
