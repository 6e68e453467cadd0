/**
 * Waiting on what the client reports, instead of sleeping: each helper resolves on the
 * listener call that satisfies it.
 */
import type {
  ConnectionEvent,
  ConnectionStatus,
  HostConnection,
  HostState,
} from '../../remote/client/index.js';
import type { HostStateStore } from '../../remote/client/testing.js';
import { TetherClient, type ClientStorage } from '../../remote/client/index.js';
import { MemoryStorage } from '../../remote/client/testing.js';
import type { FakeHost } from './fake-host.js';

/** The first event of `connection` that `match` accepts (from now on). */
export function nextEvent<E extends ConnectionEvent>(
  connection: HostConnection,
  match: (event: ConnectionEvent) => event is E,
): Promise<E> {
  return new Promise((resolve) => {
    const stop = connection.on((event) => {
      if (!match(event)) return;
      stop();
      resolve(event);
    });
  });
}

/** Resolves when the connection reaches `state` (at once if it is there). */
export function statusOf<S extends ConnectionStatus['state']>(
  connection: HostConnection,
  state: S,
): Promise<Extract<ConnectionStatus, { state: S }>> {
  const now = connection.status;
  if (now.state === state) return Promise.resolve(now as Extract<ConnectionStatus, { state: S }>);
  return nextEvent(
    connection,
    (event): event is Extract<ConnectionEvent, { type: 'status' }> =>
      event.type === 'status' && event.status.state === state,
  ).then((event) => event.status as Extract<ConnectionStatus, { state: S }>);
}

/** Resolves with the first state (now or later) that `match` accepts. */
export function stateWhere(
  store: HostStateStore,
  match: (state: HostState) => boolean,
): Promise<HostState> {
  if (match(store.state)) return Promise.resolve(store.state);
  return new Promise((resolve) => {
    const stop = store.subscribe((state) => {
      if (!match(state)) return;
      stop();
      resolve(state);
    });
  });
}

/** Settings that make reconnect waits zero, for tests not about timing. */
export const NO_WAIT = { backoff: { random: () => 0 } };

/** A client over `host`'s sockets, paired, with its connection open. */
export async function pairedClient(host: FakeHost, storage: ClientStorage = new MemoryStorage()) {
  const client = new TetherClient({ storage, socketFactory: host.factory, settings: NO_WAIT });
  const paired = await client.pair(host.offerLink(), { name: 'Test phone', platform: 'test' });
  const connection = await client.connect(paired.hostId);
  await statusOf(connection, 'open');
  return { client, paired, connection, storage };
}
