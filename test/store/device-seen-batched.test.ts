/**
 * Issue 26: a device's last seen is noted in memory, not committed on the channel's open
 * path. Readers see it at once; the notes of 10 s are written together, and whatever is
 * left when the store closes is written then. Writes are counted with SQLite's
 * `total_changes()` on the store's connection.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Store } from '../../host/store/index.js';
import { tempDir } from '../support/temp-dir.js';

afterEach(() => {
  vi.useRealTimers();
});

function pair(store: Store, deviceId: string): void {
  store.write((tx) =>
    store.devices.upsert({
      deviceId,
      devicePk: new Uint8Array(32),
      name: deviceId,
      platform: 'test',
      pairedAt: tx.at,
      lastSeenAt: null,
      revokedAt: null,
    }),
  );
}

describe('issue 26: last seen', () => {
  it('is seen by readers at once, written within 10 s in one go, and at close', async () => {
    await using dir = tempDir('tether-issue-26-seen-');
    let now = 1_000;
    const store = await Store.open({ dataDir: dir.path, now: () => now });
    const changes = () =>
      (store.db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
    pair(store, 'dev_a');
    pair(store, 'dev_b');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const before = changes();

    now = 2_000;
    store.noteDeviceSeen('dev_a');
    now = 3_000;
    store.noteDeviceSeen('dev_b');
    store.noteDeviceSeen('dev_a');
    expect(store.devices.get('dev_a')!.lastSeenAt).toBe(3_000);
    expect(store.devices.list().map((device) => device.lastSeenAt)).toEqual([3_000, 3_000]);
    vi.advanceTimersByTime(9_999);
    expect(changes()).toBe(before);

    vi.advanceTimersByTime(1);
    expect(changes()).toBe(before + 2);
    now = 4_000;
    store.noteDeviceSeen('dev_b');
    store.close();
    vi.useRealTimers();

    const reopened = await Store.open({ dataDir: dir.path });
    try {
      expect(reopened.devices.list().map((device) => device.lastSeenAt)).toEqual([3_000, 4_000]);
    } finally {
      reopened.close();
    }
  });

  it('pairing a device again forgets what was noted of its last pairing', async () => {
    await using dir = tempDir('tether-issue-26-repair-');
    const store = await Store.open({ dataDir: dir.path, now: () => 5_000 });
    try {
      pair(store, 'dev_a');
      store.noteDeviceSeen('dev_a');
      pair(store, 'dev_a');
      expect(store.devices.get('dev_a')!.lastSeenAt).toBeNull();
    } finally {
      store.close();
    }
  });
});
