import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type ConnectionEvent,
  type ConnectionStatus,
  type HostConnection,
  TetherClient,
} from '../../remote/client/index.js';
import { Backoff, MemoryStorage } from '../../remote/client/testing.js';
import { FakeHost } from './fake-host.js';
import { nextEvent, pairedClient, statusOf } from './helpers.js';

type Waiting = Extract<ConnectionStatus, { state: 'waiting' }>;

/** The next `waiting` status of `connection`. */
function nextWait(connection: HostConnection): Promise<Waiting> {
  return nextEvent(
    connection,
    (event): event is Extract<ConnectionEvent, { type: 'status' }> =>
      event.type === 'status' && event.status.state === 'waiting',
  ).then((event) => event.status as Waiting);
}

describe('backoff', () => {
  it('waits uniformly below a ceiling that doubles from 300 ms up to 30 s, until reset', () => {
    const high = new Backoff({ random: () => 0.999999 });
    const ceilings = Array.from({ length: 10 }, () => high.next() + 1);
    expect(ceilings).toEqual([300, 600, 1200, 2400, 4800, 9600, 19200, 30000, 30000, 30000]);
    expect(high.attempt).toBe(10);
    high.reset();
    expect(high.next()).toBe(299);
    const low = new Backoff({ random: () => 0 });
    expect([low.next(), low.next(), low.next()]).toEqual([0, 0, 0]);
  });
});

describe('reconnecting', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  async function pairedWithJitter(host: FakeHost) {
    const storage = new MemoryStorage();
    const { client } = await pairedClient(host, storage);
    await client.close();
    const jittered = new TetherClient({
      storage,
      socketFactory: host.factory,
      settings: { backoff: { random: () => 0.999 } },
    });
    return jittered;
  }

  it('backs off with full jitter while the host is unreachable, and tries again only after the wait', async () => {
    const host = new FakeHost();
    const client = await pairedWithJitter(host);
    host.reachable = false;
    const first = new Promise<Waiting>((resolve) => {
      const stop = client.on((event) => {
        if (event.type === 'status' && event.status.state === 'waiting') {
          stop();
          resolve(event.status);
        }
      });
    });
    const connection = await client.connect(host.identity.id);
    let wait = await first;
    const waits = [wait.retryInMs];
    for (let i = 0; i < 8; i++) {
      const sockets = host.sockets.length;
      const next = nextWait(connection);
      await vi.advanceTimersByTimeAsync(wait.retryInMs - 1);
      expect(host.sockets.length).toBe(sockets);
      await vi.advanceTimersByTimeAsync(1);
      wait = await next;
      expect(host.sockets.length).toBe(sockets + 1);
      waits.push(wait.retryInMs);
    }
    expect(waits).toEqual([299, 599, 1198, 2397, 4795, 9590, 19180, 29970, 29970]);
    host.reachable = true;
    await vi.advanceTimersByTimeAsync(wait.retryInMs);
    await statusOf(connection, 'open');
    await client.close();
  });

  it('resets the backoff after a connection that stayed open, not after one that did not', async () => {
    const host = new FakeHost();
    const client = await pairedWithJitter(host);
    host.reachable = false;
    const connection = await client.connect(host.identity.id);
    let wait = await statusOf(connection, 'waiting');
    for (let i = 0; i < 2; i++) {
      const next = nextWait(connection);
      await vi.advanceTimersByTimeAsync(wait.retryInMs);
      wait = await next;
    }
    expect(wait.retryInMs).toBe(1198);
    host.reachable = true;
    await vi.advanceTimersByTimeAsync(wait.retryInMs);
    await statusOf(connection, 'open');
    let next = nextWait(connection);
    host.dropAll(); // after a moment: still escalating
    expect((await next).retryInMs).toBe(2397);
    await vi.advanceTimersByTimeAsync(2397);
    await statusOf(connection, 'open');
    await vi.advanceTimersByTimeAsync(10_000); // pings keep it alive
    next = nextWait(connection);
    host.dropAll();
    expect((await next).retryInMs).toBe(299);
    await client.close();
  });

  it('reconnects at once on 4000 (rekey), and after a wait on 1001 (host shutting down)', async () => {
    const host = new FakeHost();
    const client = await pairedWithJitter(host);
    const connection = await client.connect(host.identity.id);
    await statusOf(connection, 'open');
    await vi.advanceTimersByTimeAsync(10_000);
    const states: string[] = [];
    connection.on((event) => event.type === 'status' && states.push(event.status.state));
    host.dropAll(4000);
    await statusOf(connection, 'connecting');
    await statusOf(connection, 'open');
    expect(states).toEqual(['connecting', 'open']);
    const wait = nextWait(connection);
    host.dropAll(1001);
    expect(await wait).toMatchObject({ retryInMs: 299, error: { code: 'unavailable' } });
    await client.close();
  });

  it('drops an open socket when told the network went away, and reconnects after the wait or at retryNow', async () => {
    const host = new FakeHost();
    const client = await pairedWithJitter(host);
    const connection = await client.connect(host.identity.id);
    await statusOf(connection, 'open');
    const socket = host.sockets.at(-1)!;
    const wait = nextWait(connection);
    host.reachable = false;
    connection.dropSocket();
    expect(await wait).toMatchObject({ retryInMs: 299, error: { code: 'unavailable' } });
    expect(socket.readyState).toBe(3);
    expect(host.openSides).toEqual([]);

    const submitted = connection.submit('run.submit', { input: { text: 'after the network' } });
    await expect.poll(() => connection.pendingCommands.length).toBe(1);
    const next = nextWait(connection);
    await vi.advanceTimersByTimeAsync(299);
    expect((await next).error.code).toBe('unavailable');
    expect(host.requests.map((request) => request.op)).not.toContain('run.submit');

    host.reachable = true;
    connection.retryNow();
    await statusOf(connection, 'open');
    await submitted;
    expect(host.requests.filter((request) => request.op === 'run.submit')).toHaveLength(1);
    await client.close();
  });

  it('pings once the channel opens and after 15 s without traffic, and reconnects when nothing arrived for 40 s', async () => {
    const host = new FakeHost();
    const { client, connection } = await pairedClient(host);
    const sockets = host.sockets.length;
    await vi.advanceTimersByTimeAsync(0);
    expect(host.pings).toBe(1); // the first frame, at once: it proves the channel to the host
    await vi.advanceTimersByTimeAsync(14_999);
    expect(host.pings).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(host.pings).toBe(2);
    await vi.advanceTimersByTimeAsync(45_000); // pong answers keep it open
    expect(host.pings).toBe(5);
    expect(connection.status.state).toBe('open');

    host.answerPings = false;
    const opened = await statusOf(connection, 'open');
    await vi.advanceTimersByTimeAsync(39_999); // the last pong came 60 s in
    expect(host.pings).toBe(7);
    expect(connection.status).toBe(opened);
    await vi.advanceTimersByTimeAsync(1);
    expect(connection.status.state).not.toBe('open');
    expect(host.sockets[sockets - 1]?.readyState).toBe(3);
    const reopened = statusOf(connection, 'open');
    await vi.advanceTimersByTimeAsync(1); // a zero wait set inside a fake tick runs 1 ms later
    await reopened;
    expect(host.sockets.length).toBe(sockets + 1);
    await client.close();
  });

  it('gives up a handshake after 10 s and tries again', async () => {
    const host = new FakeHost();
    const client = await pairedWithJitter(host);
    host.blackHole = true;
    const connection = await client.connect(host.identity.id);
    const wait = nextWait(connection);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(connection.status.state).toBe('connecting');
    await vi.advanceTimersByTimeAsync(1);
    expect(await wait).toMatchObject({ error: { code: 'handshake_timeout' } });
    expect(host.sockets.at(-1)?.readyState).toBe(3);
    host.blackHole = false;
    await vi.advanceTimersByTimeAsync(299);
    await statusOf(connection, 'open');
    await client.close();
  });
});
