/**
 * The host's condition (docs/protocol.md, "status"): a `status` frame becomes a
 * `hostStatus` event and the connection's `hostHealth`, forgotten on a new connection.
 */
import { describe, expect, it } from 'vitest';
import {
  type ConnectionEvent,
  type HostConnection,
  TetherClient,
} from '../../remote/client/index.js';
import { MemoryStorage } from '../../remote/client/testing.js';
import { FakeHost } from './fake-host.js';
import { nextEvent, pairedClient, statusOf } from './helpers.js';

type HostStatus = Extract<ConnectionEvent, { type: 'hostStatus' }>;

function nextHostStatus(connection: HostConnection): Promise<HostStatus> {
  return nextEvent(connection, (event): event is HostStatus => event.type === 'hostStatus');
}

/** The open connection's host end, which sends the frames. */
function hostEnd(host: FakeHost) {
  const [side] = host.openSides;
  if (side === undefined) throw new Error('no open connection');
  return side;
}

describe('the host condition', () => {
  it('reports `failed` and `ok` frames as events and keeps the last one, not as warnings', async () => {
    const host = new FakeHost();
    const { client, connection } = await pairedClient(host);
    const warnings: ConnectionEvent[] = [];
    connection.on((event) => {
      if (event.type === 'warning') warnings.push(event);
    });
    expect(connection.hostHealth).toBeUndefined();

    const failed = nextHostStatus(connection);
    hostEnd(host).send({ t: 'status', persistence: 'failed', message: 'SQLITE_FULL: disk full' });
    expect(await failed).toEqual({
      type: 'hostStatus',
      hostId: host.identity.id,
      persistence: 'failed',
      message: 'SQLITE_FULL: disk full',
    });
    expect(connection.hostHealth).toEqual({
      persistence: 'failed',
      message: 'SQLITE_FULL: disk full',
    });

    const ok = nextHostStatus(connection);
    hostEnd(host).send({ t: 'status', persistence: 'ok' });
    expect(await ok).toEqual({ type: 'hostStatus', hostId: host.identity.id, persistence: 'ok' });
    expect(connection.hostHealth).toEqual({ persistence: 'ok' });
    // A request after the frames: they were taken in order, and nothing was reported amiss.
    await connection.request('host.info', {});
    expect(warnings).toEqual([]);
    await client.close();
  });

  it('keeps the last condition while reconnecting and forgets it on the next connection', async () => {
    const host = new FakeHost();
    const { client, connection } = await pairedClient(host);
    const failed = nextHostStatus(connection);
    hostEnd(host).send({ t: 'status', persistence: 'failed', message: 'ENOSPC' });
    await failed;

    host.reachable = false;
    const waiting = statusOf(connection, 'waiting');
    host.dropAll();
    await waiting;
    expect(connection.hostHealth).toEqual({ persistence: 'failed', message: 'ENOSPC' });

    host.reachable = true;
    connection.retryNow();
    await statusOf(connection, 'open');
    expect(connection.hostHealth).toBeUndefined();

    // Still failing: the host says so again on the new connection.
    const again = nextHostStatus(connection);
    hostEnd(host).send({ t: 'status', persistence: 'failed', message: 'ENOSPC' });
    expect((await again).persistence).toBe('failed');
    expect(connection.hostHealth).toEqual({ persistence: 'failed', message: 'ENOSPC' });
    await client.close();
  });
  it('resends a command refused with persistence_failed as soon as the host says ok', async () => {
    const host = new FakeHost();
    // A retry would otherwise wait about a minute.
    const client = new TetherClient({
      storage: new MemoryStorage(),
      socketFactory: host.factory,
      settings: { backoff: { baseMs: 60_000, maxMs: 60_000, random: () => 0.99 } },
    });
    const paired = await client.pair(host.offerLink(), { name: 'Test phone', platform: 'test' });
    const connection = await client.connect(paired.hostId);
    await statusOf(connection, 'open');
    const submits = () => host.requests.filter((request) => request.op === 'run.submit');

    host.failNext('run.submit', 'persistence_failed');
    const result = connection.submit('run.submit', { input: { text: 'after the disk' } });
    await expect.poll(() => submits().length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the refusal arrives
    expect(connection.pendingCommands).toHaveLength(1);

    hostEnd(host).send({ t: 'status', persistence: 'ok' });
    await expect(result).resolves.toMatchObject({ runId: 'run_1' });
    expect(submits()).toHaveLength(2);
    expect(submits()[1]?.args['commandId']).toBe(submits()[0]?.args['commandId']);
    await client.close();
  });
});
