/**
 * The host's native channel crypto (libsodium) against clients on either implementation,
 * over real sockets: a client on tweetnacl (what browsers run) and one on native code
 * (the Node client) pair, open channels, ask and follow events of the same host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelCrypto } from '../../pairing/index.js';
import type { Event } from '../../protocol/index.js';
import { nativeChannelCrypto } from '../../pairing/node/index.js';
import { pureJsCrypto } from '../../pairing/testing.js';
import { TetherClient } from '../../remote/client/index.js';
import { nodeWebSocketFactory } from '../../remote/client/node/index.js';
import { MemoryStorage } from '../../remote/client/testing.js';
import { startInProcessHost, type InProcessHost } from '../support/in-process-host.js';

let host: InProcessHost;

beforeAll(async () => {
  host = await startInProcessHost();
});

afterAll(async () => {
  await host.dispose();
});

describe.each([
  ['tweetnacl', pureJsCrypto],
  ['libsodium', nativeChannelCrypto().crypto],
] as [string, ChannelCrypto][])('a client on %s', (_name, crypto) => {
  it('pairs, opens a channel, asks, and receives the events a commit publishes', async () => {
    const client = new TetherClient({
      storage: new MemoryStorage(),
      socketFactory: nodeWebSocketFactory(),
      crypto,
    });
    try {
      const { hostId } = await client.pair(await host.pairLink(), {
        name: 'Interop',
        platform: 'node',
      });
      const connection = await client.connect(hostId);
      const info = await connection.request('host.info', {});
      expect(info.hostId).toBe(hostId);
      const seen: Event[] = [];
      const subscription = connection.subscribeEvents(
        {},
        { afterSeq: 0, onEvents: (events) => seen.push(...events) },
      );
      await subscription.ready;
      const other = new TetherClient({
        storage: new MemoryStorage(),
        socketFactory: nodeWebSocketFactory(),
      });
      const second = await other.pair(await host.pairLink(), { name: 'Second', platform: 'node' });
      await other.close();
      // Replayed from seq 0, then live: the device paired before the channel and the one after.
      await expect
        .poll(() =>
          seen
            .filter((event) => event.type === 'device.paired')
            .map((event) => (event.payload as { deviceId: string }).deviceId),
        )
        .toEqual(expect.arrayContaining([connection.deviceId, second.deviceId]));
    } finally {
      await client.close();
    }
  });
});
