/**
 * The host's condition (docs/protocol.md, "status"): a `status` frame becomes a
 * `hostStatus` event and the connection's `hostHealth`, forgotten on a new connection.
 */
import { describe, expect, it } from 'vitest';
import type { ConnectionEvent, HostConnection } from '../../remote/client/index.js';
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
});
