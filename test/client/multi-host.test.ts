import { describe, expect, it } from 'vitest';
import { type ConnectionEvent, TetherClient } from '../../remote/client/index.js';
import { MemoryStorage } from '../../remote/client/testing.js';
import { FakeHost } from './fake-host.js';
import { NO_WAIT, stateWhere, statusOf } from './helpers.js';

const device = { name: 'Tablet', platform: 'test' };

/** Two hosts, told apart by origin, and one client paired with both. */
async function twoHosts() {
  const studio = new FakeHost();
  const laptop = new FakeHost();
  const storage = new MemoryStorage();
  const client = new TetherClient({
    storage,
    socketFactory: (url) => (url.startsWith('ws://studio') ? studio : laptop).factory(url),
    settings: NO_WAIT,
  });
  await client.pair(studio.offerLink('http://studio.test'), device);
  await client.pair(laptop.offerLink('http://laptop.test'), device);
  return { studio, laptop, storage, client };
}

describe('several hosts at once', () => {
  it('keeps one connection and one state per host, and reports events with their hostId', async () => {
    const { studio, laptop, client } = await twoHosts();
    const events: ConnectionEvent[] = [];
    client.on((event) => events.push(event));
    const [a, b] = await client.connectAll();
    await Promise.all([statusOf(a!, 'open'), statusOf(b!, 'open')]);
    expect([a?.hostId, b?.hostId]).toEqual([studio.identity.id, laptop.identity.id]);
    expect(client.connection(studio.identity.id)).toBe(a);
    a!.subscribeEvents();
    b!.subscribeEvents();
    await a!.submit('run.submit', { input: { text: 'on the studio' } });
    await stateWhere(a!.state, (state) => state.runs['run_1']?.input.text === 'on the studio');
    expect(b!.state.state.runs).toEqual({});
    const hostsSeen = new Set(events.map((event) => event.hostId));
    expect(hostsSeen).toEqual(new Set([studio.identity.id, laptop.identity.id]));
    await client.close();
  });

  it('forgets a revoked host, its record and its outbox, and keeps the others', async () => {
    const { studio, laptop, storage, client } = await twoHosts();
    const connection = await client.connect(studio.identity.id);
    await statusOf(connection, 'open');
    studio.reachable = false;
    studio.dropAll();
    await statusOf(connection, 'waiting');
    void connection.submit('run.submit', { input: { text: 'never sent' } }).catch(() => undefined);
    await expect.poll(async () => storage.get(`outbox/${studio.identity.id}`)).toHaveLength(1);
    studio.reachable = true;
    for (const entry of studio.devices.values()) entry.revoked = true;
    connection.retryNow();
    expect(await statusOf(connection, 'stopped')).toMatchObject({ reason: 'revoked' });
    await client.forget(studio.identity.id);
    expect((await client.pairedHosts()).map((host) => host.hostId)).toEqual([laptop.identity.id]);
    expect(await storage.get(`outbox/${studio.identity.id}`)).toBeUndefined();
    expect(client.connection(studio.identity.id)).toBeUndefined();
  });
});
