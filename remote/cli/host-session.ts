/**
 * Picking the paired host a command talks to, connecting to it, and closing the client
 * when the command is done.
 */
import { TetherError } from '../../protocol/index.js';
import type {
  ConnectionStatus,
  HostConnection,
  PairedHostSummary,
  TetherClient,
} from '../client/index.js';
import { openClient, type RemoteContext } from './remote-context.js';

/**
 * The host `--host` names (by hostId, or by name when that is unambiguous), or the only
 * paired host; else `not_found` / `invalid_request` listing the paired hosts.
 */
async function chooseHost(
  client: TetherClient,
  hostFlag: string | undefined,
): Promise<PairedHostSummary> {
  const hosts = await client.pairedHosts();
  if (hosts.length === 0) {
    throw new TetherError(
      'not_found',
      'not paired with any host: pair with tether remote pair <link> (run tether pair on the host for a link)',
    );
  }
  const list = hosts.map((host) => `  ${host.hostId}  ${host.hostName}  ${host.origin}`).join('\n');
  if (hostFlag === undefined) {
    if (hosts.length === 1) return hosts[0]!;
    throw new TetherError(
      'invalid_request',
      `paired with ${hosts.length} hosts: pick one with --host HOSTID\n${list}`,
    );
  }
  const byId = hosts.find((host) => host.hostId === hostFlag);
  if (byId !== undefined) return byId;
  const byName = hosts.filter((host) => host.hostName === hostFlag);
  if (byName.length === 1) return byName[0]!;
  throw new TetherError('not_found', `no paired host ${hostFlag}; paired hosts:\n${list}`);
}

/** Why a connection cannot be used, said for people. */
export function connectionError(host: PairedHostSummary, status: ConnectionStatus): TetherError {
  switch (status.state) {
    case 'stopped':
      if (status.reason === 'revoked') {
        return new TetherError(
          'device_revoked',
          `${host.hostName} revoked this device: pair again with: tether remote pair <link>`,
        );
      }
      return new TetherError(
        status.error.code,
        `${host.hostName} refused this device: ${status.error.message}`,
      );
    case 'waiting':
      return new TetherError(
        'unavailable',
        `cannot reach ${host.hostName} at ${host.origin}: ${status.error.message}`,
      );
    case 'connecting':
    case 'open':
    case 'closed':
      return new TetherError('unavailable', `the connection to ${host.hostName} closed`);
  }
}

/** Resolves once the connection is open; rejects at its first failure or on `signal`. */
function whenOpen(
  connection: HostConnection,
  host: PairedHostSummary,
  signal: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (status: ConnectionStatus): boolean => {
      if (status.state === 'open') resolve();
      else if (status.state === 'connecting') return false;
      else reject(connectionError(host, status));
      return true;
    };
    if (settle(connection.status)) return;
    const onAbort = () => {
      stop();
      reject(signal.reason as Error);
    };
    const stop = connection.on((event) => {
      if (event.type !== 'status' || !settle(event.status)) return;
      stop();
      signal.removeEventListener('abort', onAbort);
    });
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Opens the client on the state file, connects to the chosen host, runs `use` once the
 * connection is open, and closes the client (pending commands stay in the outbox).
 */
export async function withHost<T>(
  ctx: RemoteContext,
  flags: { state?: string; host?: string },
  use: (connection: HostConnection, host: PairedHostSummary) => Promise<T>,
): Promise<T> {
  const client = openClient(ctx, flags.state);
  try {
    const host = await chooseHost(client, flags.host);
    const connection = await client.connect(host.hostId);
    await whenOpen(connection, host, ctx.signal);
    return await use(connection, host);
  } finally {
    await client.close();
  }
}
