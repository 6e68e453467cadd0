/**
 * Issue 28: uploads no run was given are removed once a day old while the host runs, not
 * only at its next start, and each sweep removes a bounded batch, the oldest first; an
 * upload younger than a day stays, and so does one whose last chunk came within a day. Runs are never deleted by Tether, so a run's own
 * attachments and its run-attachments folder stay with it (docs/attachments.md).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Store } from '../../host/store/index.js';
import { UNUSED_ATTACHMENT_MS, UploadSweep } from '../../host/runtime/testing.js';
import { tempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';

const DAY = UNUSED_ATTACHMENT_MS;

/** An upload of one chunk begun at the store's `now`, its file written. */
function upload(store: Store, id: string): void {
  store.write(() => {
    store.attachments.insert({
      id,
      deviceId: 'dev_phone',
      name: `${id}.txt`,
      mediaType: 'text/plain',
      size: 2,
      total: 1,
      createdAt: now,
    });
    store.attachments.writeChunk(id, 0, Buffer.from('hi'));
  });
}

let now = 1_000_000;

describe('the sweep of unused uploads', () => {
  it('removes, while running, the uploads a day old at the latest sweep, a batch at a time', async () => {
    await using dir = tempDir('tether-upload-sweep-');
    const store = await Store.open({ dataDir: dir.path, now: () => now });
    try {
      for (const id of [
        'att_old_aaaaaaaaaaaa1',
        'att_old_aaaaaaaaaaaa2',
        'att_old_aaaaaaaaaaaa3',
      ]) {
        upload(store, id);
        now += 1000;
      }
      const sweep = new UploadSweep(store, (error) => expect.fail(String(error)), {
        intervalMs: 20,
        batch: 2,
        now: () => now,
      });
      // At start nothing is a day old: all stay.
      sweep.start();
      const path = (id: string) => store.attachments.path(id);
      expect(existsSync(path('att_old_aaaaaaaaaaaa1'))).toBe(true);

      // The host runs on: a day later, and a fresh upload beside them.
      now += DAY;
      upload(store, 'att_new_aaaaaaaaaaaa1');
      await until(
        'the sweep removed the three uploads a day old',
        () => ['att_old_aaaaaaaaaaaa1', 'att_old_aaaaaaaaaaaa2', 'att_old_aaaaaaaaaaaa3'],
        (ids) =>
          ids.every((id) => store.attachments.get(id) === undefined && !existsSync(path(id))),
        { timeout: 30_000 },
      );
      sweep.stop();
      expect(store.attachments.get('att_new_aaaaaaaaaaaa1')).toBeDefined();
      expect(existsSync(path('att_new_aaaaaaaaaaaa1'))).toBe(true);
    } finally {
      store.close();
    }
  });

  it('removes at most a batch per sweep, the oldest first', async () => {
    await using dir = tempDir('tether-upload-sweep-');
    const store = await Store.open({ dataDir: dir.path, now: () => now });
    try {
      const ids = ['att_b_aaaaaaaaaaaaaa1', 'att_b_aaaaaaaaaaaaaa2', 'att_b_aaaaaaaaaaaaaa3'];
      for (const id of ids) {
        upload(store, id);
        now += 1000;
      }
      now += DAY;
      const sweep = new UploadSweep(store, (error) => expect.fail(String(error)), {
        batch: 2,
        now: () => now,
      });
      expect(sweep.sweep()).toBe(2);
      expect(ids.map((id) => store.attachments.get(id) !== undefined)).toEqual([
        false,
        false,
        true,
      ]);
      expect(sweep.sweep()).toBe(1);
      expect(sweep.sweep()).toBe(0);
    } finally {
      store.close();
    }
  });

  it('keeps an upload a day from its start while its chunks still come, and removes it a day after its last', async () => {
    await using dir = tempDir('tether-upload-sweep-');
    const store = await Store.open({ dataDir: dir.path, now: () => now });
    try {
      const slow = 'att_slow_aaaaaaaaaaa1';
      const left = 'att_left_aaaaaaaaaaa1';
      for (const id of [slow, left]) {
        store.write(() =>
          store.attachments.insert({
            id,
            deviceId: 'dev_phone',
            name: `${id}.bin`,
            mediaType: 'application/octet-stream',
            size: 3 * 1024 * 1024,
            total: 3,
            createdAt: now,
          }),
        );
      }
      // The phone was away most of a day; a chunk of the slow one comes just before it ends.
      now += DAY - 1000;
      store.write(() => store.attachments.setReceived(slow, 1, now));
      now += 2000;
      const sweep = new UploadSweep(store, (error) => expect.fail(String(error)), {
        now: () => now,
      });
      expect(sweep.sweep()).toBe(1);
      expect(store.attachments.get(left)).toBeUndefined();
      expect(store.attachments.get(slow)?.received).toBe(1);
      // Then nothing more for a day: it goes.
      now += DAY;
      expect(sweep.sweep()).toBe(1);
      expect(store.attachments.get(slow)).toBeUndefined();
    } finally {
      store.close();
    }
  });
});
