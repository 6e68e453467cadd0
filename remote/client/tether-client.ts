/**
 * The client core every remote uses: pairs with hosts, keeps one {@link HostConnection}
 * per paired host, and reports what happens on all of them.
 */
import { type ChannelCrypto, parsePairLink, type RandomBytes } from '../../pairing/index.js';
import { TetherError } from '../../protocol/index.js';
import { ClientRecords } from './client-records.js';
import { type ConnectionEvent, type ConnectionSettings, outboxKey } from './connection-types.js';
import { HostConnection } from './host-connection.js';
import { Listeners } from './listeners.js';
import { pairOverSocket } from './pair-over-socket.js';
import type { ClientStorage } from './storage.js';
import { systemTimers, type Timers } from './timers.js';
import type { WebSocketFactory } from './websocket.js';

/** What a client needs: storage and sockets, injected; timers and settings for tests. */
export interface TetherClientOptions {
  /** Where the device identity, paired hosts and outboxes live. */
  storage: ClientStorage;
  socketFactory: WebSocketFactory;
  timers?: Timers;
  randomBytes?: RandomBytes;
  /** The channel's primitives; default pairing's pure-JS one (a Node client passes a native one). */
  crypto?: ChannelCrypto;
  /** Applied to every host connection. */
  settings?: Partial<ConnectionSettings>;
}

/** What pairing reports: the SAS is shown for the user to compare with the host's. */
export interface PairResult {
  hostId: string;
  hostName: string;
  deviceId: string;
  /** Six digits. */
  sas: string;
}

/** A paired host as listed. */
export interface PairedHostSummary {
  hostId: string;
  hostName: string;
  origin: string;
  deviceId: string;
}

/** One client installation: its device identity, its paired hosts, their connections. */
export class TetherClient {
  private readonly records: ClientRecords;
  private readonly timers: Timers;
  private readonly connections = new Map<string, HostConnection>();
  private readonly events = new Listeners<ConnectionEvent>();

  constructor(private readonly options: TetherClientOptions) {
    this.records = new ClientRecords(options.storage, options.randomBytes);
    this.timers = options.timers ?? systemTimers;
  }

  /**
   * Pairs with the host of a scanned link (docs/protocol.md §3) and stores its record.
   * Rejects with `invalid_request` for a malformed link or name, `pair_failed` when the
   * host refuses (expired, used or unknown offer), or when the host is not the one scanned.
   */
  async pair(
    link: string,
    device: { name: string; platform: string },
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<PairResult> {
    const parsed = parsePairLink(link);
    const identity = await this.records.deviceIdentity();
    const { host, sas } = await pairOverSocket(parsed, {
      identity,
      name: device.name,
      platform: device.platform,
      socketFactory: this.options.socketFactory,
      timers: this.timers,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(this.options.randomBytes === undefined ? {} : { randomBytes: this.options.randomBytes }),
    });
    await this.records.saveHost(host);
    return { hostId: host.hostId, hostName: host.hostName, deviceId: host.deviceId, sas };
  }

  /** Every paired host, in pairing order. */
  async pairedHosts(): Promise<PairedHostSummary[]> {
    const hosts = await this.records.hosts();
    return hosts.map(({ hostId, hostName, origin, deviceId }) => ({
      hostId,
      hostName,
      origin,
      deviceId,
    }));
  }

  /** The started connection to a paired host (made once); `not_found` when not paired. */
  async connect(hostId: string): Promise<HostConnection> {
    const existing = this.connections.get(hostId);
    if (existing !== undefined) return existing;
    const record = (await this.records.hosts()).find((host) => host.hostId === hostId);
    if (record === undefined) throw new TetherError('not_found', `not paired with host ${hostId}`);
    // Another call may have connected while the records were read.
    const raced = this.connections.get(hostId);
    if (raced !== undefined) return raced;
    const connection = new HostConnection({
      record,
      storage: this.options.storage,
      socketFactory: this.options.socketFactory,
      timers: this.timers,
      ...(this.options.randomBytes === undefined ? {} : { randomBytes: this.options.randomBytes }),
      ...(this.options.crypto === undefined ? {} : { crypto: this.options.crypto }),
      ...(this.options.settings === undefined ? {} : { settings: this.options.settings }),
    });
    connection.on((event) => this.events.emit(event));
    this.connections.set(hostId, connection);
    connection.start();
    return connection;
  }

  /** Connects to every paired host. */
  async connectAll(): Promise<HostConnection[]> {
    const hosts = await this.records.hosts();
    return Promise.all(hosts.map((host) => this.connect(host.hostId)));
  }

  /** The connection to a host, if {@link connect} made one. */
  connection(hostId: string): HostConnection | undefined {
    return this.connections.get(hostId);
  }

  /**
   * Closes the host's connection and deletes its record and outbox: after a revocation,
   * or when the user unpairs. Pending commands are dropped unsent.
   */
  async forget(hostId: string): Promise<void> {
    const connection = this.connections.get(hostId);
    this.connections.delete(hostId);
    await connection?.close();
    await this.records.deleteHost(hostId);
    await this.options.storage.delete(outboxKey(hostId));
  }

  /** Events of every connection, each carrying its hostId. */
  on(listener: (event: ConnectionEvent) => void): () => void {
    return this.events.add(listener);
  }

  /** Closes every connection; outboxes stay stored for the next client. */
  async close(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((connection) => connection.close()));
  }
}
