/**
 * Issue 24, "A store that went back in time is said so": the history mark beside the
 * database, compared at open with the seqs the database handed out, and a device's cursor
 * past the head (host/store/store-history.ts). Real SQLite files; the backup is the
 * database file copied while the store is closed, as a user restores one from `backups/`.
 */
import { copyFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readHistoryMark, Store, type HistoryRewind } from '../../host/store/index.js';
import { openSubscription } from '../../host/runtime/subscriptions.js';
import { tempDir } from '../support/temp-dir.js';

/** Commits `count` events; returns the last seq. */
function commit(store: Store, count: number): number {
  let seq = 0;
  for (let i = 0; i < count; i++) {
    seq = store.write((tx) =>
      tx.append({ type: 'host.stopping', payload: { instance: 'ins_t' } }),
    ).seq;
  }
  return seq;
}

/** Puts `copy` back as the database, as a restore from `backups/` does (host stopped). */
function restore(dataDir: string, copy: string): void {
  for (const suffix of ['-wal', '-shm'])
    rmSync(join(dataDir, `tether.db${suffix}`), { force: true });
  copyFileSync(copy, join(dataDir, 'tether.db'));
}

async function open(dataDir: string, found: HistoryRewind[] = []): Promise<Store> {
  return Store.open({ dataDir, onHistoryRewound: (rewind) => found.push(rewind) });
}

describe('a store that went back in time', () => {
  it('says nothing across normal restarts, and the mark follows the head at close', async () => {
    await using dir = tempDir('tether-rewind-normal-');
    const found: HistoryRewind[] = [];
    let store = await open(dir.path, found);
    const last = commit(store, 5);
    store.close();
    expect(readHistoryMark(dir.path)).toEqual({
      mark: {
        v: 1,
        database: expect.any(String) as string,
        seq: last,
        at: expect.any(Number) as number,
      },
    });
    store = await open(dir.path, found);
    commit(store, 2);
    store.close();
    store = await open(dir.path, found);
    expect(store.history.state).toEqual({});
    expect(found).toEqual([]);
    store.close();
  });

  it('finds a restored copy at open, records it once, raises the seqs, until acknowledged', async () => {
    await using dir = tempDir('tether-rewind-restore-');
    const copy = join(dir.path, 'copy.db');
    const found: HistoryRewind[] = [];
    let store = await open(dir.path, found);
    const early = commit(store, 3);
    store.close();
    copyFileSync(join(dir.path, 'tether.db'), copy);
    store = await open(dir.path, found);
    const late = commit(store, 4);
    store.close();

    restore(dir.path, copy);
    store = await open(dir.path, found);
    expect(found).toEqual([
      expect.objectContaining({ source: 'mark', head: early, knownHead: late, deviceId: null }),
    ]);
    expect(store.history.state).toEqual({
      rewound: {
        detectedAt: expect.any(Number) as number,
        head: early,
        knownHead: late,
        by: 'host',
        count: 1,
      },
    });
    expect(store.events.head(), 'the lost events are not there').toBe(early);
    // No seq a device saw in the lost history is handed out again.
    expect(commit(store, 1)).toBe(late + 1);
    // A cursor in the lost history gets a snapshot, even once new events passed it.
    const mode = (afterSeq: number) => {
      const subscription = openSubscription(store, { afterSeq, scope: {} }, () => ({}));
      subscription.close();
      return subscription.mode;
    };
    expect([mode(early), mode(early + 1), mode(late), mode(late + 1)]).toEqual([
      'replay',
      'snapshot',
      'snapshot',
      'replay',
    ]);
    store.close();

    // Shown again at the next start, not found again.
    store = await open(dir.path, found);
    expect(found).toHaveLength(1);
    expect(store.history.state.rewound?.count).toBe(1);
    expect(store.history.acknowledge()).toBe(1);
    expect(store.history.state).toEqual({});
    store.close();
    store = await open(dir.path, found);
    expect(store.history.state).toEqual({});
    expect(found).toHaveLength(1);
    store.close();
  });

  it('takes a database made afresh for a new one, not a rewind', async () => {
    await using dir = tempDir('tether-rewind-fresh-');
    const found: HistoryRewind[] = [];
    let store = await open(dir.path, found);
    commit(store, 3);
    store.close();
    for (const suffix of ['', '-wal', '-shm']) {
      rmSync(join(dir.path, `tether.db${suffix}`), { force: true });
    }
    // Another millisecond: the new database's first migration is applied at another time.
    await new Promise((resolve) => setTimeout(resolve, 5));
    store = await open(dir.path, found);
    expect(store.history.state).toEqual({});
    expect(found).toEqual([]);
    store.close();
  });

  it('says a torn mark, and writes it afresh', async () => {
    await using dir = tempDir('tether-rewind-torn-');
    let store = await open(dir.path);
    commit(store, 2);
    store.close();
    writeFileSync(join(dir.path, 'history-mark.json'), '{"v":1,"data');
    store = await open(dir.path);
    expect(store.history.markProblem).toMatch(/history-mark\.json is not JSON/);
    expect(store.history.state).toEqual({});
    store.close();
    expect(existsSync(join(dir.path, 'history-mark.json'))).toBe(true);
    store = await open(dir.path);
    expect(store.history.markProblem).toBeNull();
    store.close();
  });

  it('records a device cursor past every seq handed out, once, and raises the seqs', async () => {
    await using dir = tempDir('tether-rewind-device-');
    const found: HistoryRewind[] = [];
    const store = await open(dir.path, found);
    const head = commit(store, 3);
    const subscribe = (afterSeq: number) =>
      openSubscription(store, { afterSeq, scope: {}, deviceId: 'dev_phone' }, () => ({})).close();
    subscribe(head);
    expect(store.history.state).toEqual({});
    subscribe(head + 40);
    subscribe(head + 40);
    subscribe(head + 10);
    expect(found).toEqual([
      expect.objectContaining({
        source: 'device',
        head,
        knownHead: head + 40,
        deviceId: 'dev_phone',
      }),
    ]);
    expect(store.history.state.rewound).toMatchObject({
      by: 'device',
      deviceId: 'dev_phone',
      count: 1,
    });
    expect(commit(store, 1)).toBe(head + 41);
    store.close();
  });
});
