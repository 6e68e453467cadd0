// The app's model paired with a real host while its start was reading the paired hosts: start
// found the host the pairing had just stored, and both added it, so the host was subscribed
// to twice and the first entry's listeners ran on, unseen. It is added once.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { HostConnection } from '#client';
import { nodeWebSocketFactory } from '../../remote/client/node/index.js';
import { MemoryStorage } from '../../remote/client/testing.js';
import { AppModel } from '../../remote/app/src/state/app-model.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { until } from '../support/wait.js';

/** A device's storage that calls `onStored` once the paired hosts' record is written. */
class StorageWatchingPairing extends MemoryStorage {
  onStored: (() => void) | undefined;

  override async set(key: string, value: unknown): Promise<void> {
    await super.set(key, value);
    if (key === 'paired-hosts') this.onStored?.();
  }
}

let host: HostProcess;

beforeAll(async () => {
  host = await startHostProcess();
  // The model renders at most once a frame: Node has no frames, its 250 ms timer stands in.
  vi.stubGlobal('requestAnimationFrame', () => 0);
});

afterEach(() => vi.restoreAllMocks());

afterAll(async () => {
  await host?.stop();
});

describe("the app's model", () => {
  it('adds a host once when its start reads the host a pairing just stored', async () => {
    const subscribed = vi.spyOn(HostConnection.prototype, 'subscribeEvents');
    const storage = new StorageWatchingPairing();
    const model = new AppModel(storage, nodeWebSocketFactory(), () => true);
    let started: Promise<void> | undefined;
    storage.onStored = () => {
      started = model.start();
    };

    const paired = await model.pair(await host.pairLink(), {
      name: 'Racing phone',
      platform: 'test',
    });
    await started;

    expect(started).toBeDefined();
    expect(subscribed).toHaveBeenCalledTimes(1);
    const view = await until(
      'the view to hold the host',
      () => model.view,
      (shown) => shown.loaded && shown.hosts.length > 0,
    );
    expect(view.hosts.map((shown) => shown.hostId)).toEqual([paired.hostId]);
    await model.forget(paired.hostId);
    // Forgetting loads no chunk for tasks this device does not keep (Node has no IndexedDB).
    await vi.dynamicImportSettled();
  });
});
