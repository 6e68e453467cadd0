/**
 * The host and its remotes for the channel bench, all in this process so one clock times
 * both ends: the real host (`startHost`, as `tether start` runs it) on a temp data
 * directory, and client-core remotes paired through its loopback admin API.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type WebSocket from 'ws';
import { z } from 'zod';
import { startHost, type RunningHost } from '../host/cli/start-host.js';
import { nativeChannelCrypto } from '../pairing/node/index.js';
import type { Store } from '../host/store/index.js';
import {
  type HostConnection,
  loadQuickEventCheck,
  TetherClient,
  type WebSocketFactory,
} from '../remote/client/index.js';
import { MemoryStorage } from '../remote/client/testing.js';
import { nodeWebSocketFactory } from '../remote/client/node/index.js';

/** The running host, its store, and pairing links from its admin API. */
export interface BenchHost {
  readonly host: RunningHost;
  readonly store: Store;
  /** A fresh single-use pairing link. */
  pairLink(): Promise<string>;
  /** Stops the host and removes its folders. */
  stop(): Promise<void>;
}

/** A paired device: its storage (identity and host record), a client, its connection. */
export interface Remote {
  readonly storage: MemoryStorage;
  readonly hostId: string;
  readonly client: TetherClient;
  readonly connection: HostConnection;
  /** The socket the connection opened last. */
  socket(): WebSocket;
}

const AdminFile = z.object({ url: z.string(), token: z.string() });
const OfferResult = z.looseObject({ link: z.string() });

/** Starts the host on 127.0.0.1, a free port and a temp data directory, with no model. */
export async function startBenchHost(): Promise<BenchHost> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-channel-')));
  const dataDir = join(root, 'data');
  const workspace = join(root, 'workspace');
  mkdirSync(workspace);
  process.env['TETHER_KEY_STORE'] = 'file';
  process.env['TETHER_LOG_LEVEL'] = 'warn';
  const host = await startHost(
    ['--data', dataDir, '--port', '0', '--workspace', workspace],
    () => undefined,
  );
  return {
    host,
    store: host.store,
    async pairLink() {
      const admin = AdminFile.parse(
        JSON.parse(readFileSync(join(dataDir, 'admin.json'), 'utf8')) as unknown,
      );
      const response = await fetch(`${admin.url}/admin/api/offers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      return OfferResult.parse(await response.json()).link;
    },
    async stop() {
      await host.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Resolves once `connection` is open. */
function opened(connection: HostConnection): Promise<void> {
  if (connection.status.state === 'open') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const stop = connection.on((event) => {
      if (event.type !== 'status') return;
      if (event.status.state === 'open') {
        stop();
        resolve();
      } else if (event.status.state === 'stopped') {
        stop();
        reject(event.status.error);
      }
    });
  });
}

const remoteCrypto = nativeChannelCrypto().crypto;
// As `tether remote` does when it opens its client (remote/cli/remote-context.ts).
await loadQuickEventCheck();

/** A client on `storage`'s device, connected to `hostId` and open. */
export async function connectRemote(storage: MemoryStorage, hostId: string): Promise<Remote> {
  const sockets: WebSocket[] = [];
  const open = nodeWebSocketFactory();
  const recording: WebSocketFactory = (url) => {
    const socket = open(url) as WebSocket;
    sockets.push(socket);
    return socket;
  };
  // The Node client's crypto, as remote/cli runs it (libsodium); browsers run tweetnacl.
  const client = new TetherClient({ storage, socketFactory: recording, crypto: remoteCrypto });
  const connection = await client.connect(hostId);
  await opened(connection);
  return { storage, hostId, client, connection, socket: () => sockets.at(-1)! };
}

/** A new device paired with the host through a fresh offer, connected and open. */
export async function pairRemote(host: BenchHost, name: string): Promise<Remote> {
  const storage = new MemoryStorage();
  const pairing = new TetherClient({ storage, socketFactory: nodeWebSocketFactory() });
  const { hostId } = await pairing.pair(await host.pairLink(), { name, platform: 'bench' });
  await pairing.close();
  return connectRemote(storage, hostId);
}
