/**
 * The `ws` endpoint `/v1/ws` (docs/protocol.md sections 2-6): upgrades, the handshake limits
 * by address and device, live connections by device, revocation, and live previews fan-out.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import {
  CloseCode,
  MAX_FRAME_BYTES,
  TetherError,
  type StatusMessage,
} from '../../protocol/index.js';
import { type ChannelCrypto, handshakeErrorFrame, type Identity } from '../../pairing/index.js';
import type { Logger } from '../log/index.js';
import type { Runtime } from '../runtime/index.js';
import { clientAddress } from './client-address.js';
import type { DownloadLinks } from './download-links.js';
import { requestOrigin } from './download-origin.js';
import { Connection } from './connection.js';
import { LiveFanout } from './live-fanout.js';
import { RateLimiter } from './rate-limiter.js';
import { RefusalLog } from './refusal-log.js';
import { DEFAULT_CHANNEL_LIMITS, retryIn, type ChannelLimits } from './server-limits.js';

export interface ChannelServerOptions {
  runtime: Runtime;
  identity: Identity;
  /** Signatures, key agreement and frame sealing of every channel. */
  crypto: ChannelCrypto;
  hostName: string;
  version: string;
  log: Logger;
  downloads: DownloadLinks;
  now?: () => number;
  /** Defaults: {@link DEFAULT_CHANNEL_LIMITS}. */
  limits?: Partial<ChannelLimits>;
}

/** The `status` frame (docs/protocol.md) for the store's condition. */
function statusMessage(state: Runtime['persistence']): StatusMessage {
  return state.ok
    ? { t: 'status', persistence: 'ok' }
    : { t: 'status', persistence: 'failed', message: state.message };
}

export class ChannelServer {
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<Connection>();
  private readonly handshaking = new Map<string, number>();
  private readonly fanout: LiveFanout;
  private readonly stopLive: () => void;
  private readonly limits: ChannelLimits;
  private readonly now: () => number;
  private readonly handshakesByAddress: RateLimiter;
  private readonly hellosByDevice: RateLimiter;
  private readonly refusals: RefusalLog;

  constructor(private readonly options: ChannelServerOptions) {
    this.limits = { ...DEFAULT_CHANNEL_LIMITS, ...options.limits };
    this.now = options.now ?? Date.now;
    this.handshakesByAddress = new RateLimiter(this.limits.handshakesPerAddress, this.now);
    this.hellosByDevice = new RateLimiter(this.limits.hellosPerDevice, this.now);
    this.refusals = new RefusalLog(options.log, this.limits.refusalLogIntervalMs);
    // A little over the frame limit, so an oversized frame reaches us and closes with 4400.
    this.wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES + 64 * 1024 });
    this.fanout = new LiveFanout((message, run) => {
      for (const connection of this.connections) connection.sendLive(message, run);
    });
    const stopPreviews = options.runtime.onLive((message, run) => this.fanout.push(message, run));
    const stopCommits = options.runtime.onCommit((events) => {
      for (const event of events) {
        if (event.type === 'message.completed' && event.runId !== null)
          this.fanout.discardPreview(event.runId);
      }
    });
    const stopStatus = options.runtime.onPersistence((state) => {
      const status = statusMessage(state);
      for (const connection of this.connections) connection.sendStatus(status);
    });
    this.stopLive = () => {
      stopPreviews();
      stopCommits();
      stopStatus();
    };
  }

  /** Handles an HTTP upgrade; anything but `/v1/ws` is refused. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/v1/ws') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      const address = clientAddress(request);
      const inProgress = this.handshaking.get(address) ?? 0;
      const refuse = (message: string) => {
        this.refusals.refused('rate_limited', address, 'handshake refused', { detail: message });
        const error = new TetherError('rate_limited', message);
        ws.send(JSON.stringify(handshakeErrorFrame(error)));
        ws.close(CloseCode.rateLimited, 'rate_limited');
      };
      if (inProgress >= this.limits.handshakesInProgressPerAddress) {
        return refuse('too many handshakes in progress from this address: retry in 1 s');
      }
      const rate = this.handshakesByAddress.take(address);
      if (!rate.ok) {
        return refuse(`too many handshakes from this address: ${retryIn(rate.retryInMs)}`);
      }
      this.handshaking.set(address, inProgress + 1);
      let counted = true;
      const release = () => {
        if (!counted) return;
        counted = false;
        const left = (this.handshaking.get(address) ?? 1) - 1;
        if (left <= 0) this.handshaking.delete(address);
        else this.handshaking.set(address, left);
      };
      const { runtime, identity, crypto, hostName, version, log, downloads } = this.options;
      const connection = new Connection(
        ws,
        {
          runtime,
          identity,
          crypto,
          hostId: identity.id,
          hostName,
          version,
          log,
          downloads,
          now: this.now,
          handshakeTimeoutMs: this.limits.handshakeTimeoutMs,
          firstFrameTimeoutMs: this.limits.firstFrameTimeoutMs,
          refusals: this.refusals,
          closeDeviceSockets: (deviceId, except) => this.closeDevice(deviceId, except),
          admitHello: (deviceId) => {
            const verdict = this.hellosByDevice.take(deviceId);
            if (verdict.ok) return null;
            const wait = retryIn(verdict.retryInMs);
            return new TetherError('rate_limited', `too many handshakes for this device: ${wait}`);
          },
          admitChannel: (deviceId) => this.admitChannel(deviceId),
          onOpen: (opened) => {
            log.info('channel open', { conn: opened.id, deviceId: opened.deviceId, address });
            const { persistence } = this.options.runtime;
            if (!persistence.ok) opened.sendStatus(statusMessage(persistence));
          },
          onConfirmed: release,
          onClose: (closed) => {
            release();
            this.connections.delete(closed);
          },
        },
        address,
        requestOrigin(request),
      );
      this.connections.add(connection);
    });
  }

  /**
   * Room for one more channel of `deviceId`: under the cap, or by closing (4408) its oldest
   * channel that never sent a valid frame (a replayed hello holds one; the device would
   * have). When every channel of the device has, the new one is refused.
   */
  private admitChannel(deviceId: string): TetherError | null {
    const open = [...this.connections].filter((c) => c.deviceId === deviceId && c.isOpen);
    if (open.length < this.limits.channelsPerDevice) return null;
    const unproven = open.find((connection) => !connection.confirmed);
    if (unproven === undefined) {
      return new TetherError(
        'rate_limited',
        `this device has ${open.length} channels open already: close one, or retry in 10 s`,
      );
    }
    unproven.close(CloseCode.handshakeTimeout, 'handshake_timeout');
    return null;
  }

  /** Closes every live socket of a revoked device with 4403 (but `exceptConnection`). */
  closeDevice(deviceId: string, exceptConnection?: string): void {
    for (const connection of [...this.connections]) {
      if (connection.deviceId !== deviceId || connection.id === exceptConnection) continue;
      connection.close(CloseCode.revoked, 'device_revoked');
    }
  }

  /** Connections whose channel is open (for tests and the admin page). */
  openConnections(): number {
    return [...this.connections].filter((connection) => connection.isOpen).length;
  }

  /** Closes every socket with 1001 (host shutting down). */
  close(): void {
    this.refusals.close();
    this.stopLive();
    this.fanout.close();
    for (const connection of [...this.connections])
      connection.close(CloseCode.goingAway, 'host shutting down');
    this.wss.close();
  }
}
