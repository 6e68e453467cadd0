/**
 * The contracts of a host connection: its status, what it reports, its settings.
 */
import type { CommandOpName, OpName, SubscribeScope, TetherError } from '../../protocol/index.js';
import type { ChannelCrypto, PairedHost, RandomBytes } from '../../pairing/index.js';
import type { BackoffOptions } from './backoff.js';
import type { CommandOutcome } from './command-queue.js';
import { HANDSHAKE_TIMEOUT_MS } from './frame-socket.js';
import { DEFAULT_KEEPALIVE, type KeepaliveSettings } from './keepalive.js';
import type { PendingCommand } from './outbox.js';
import type { ClientStorage } from './storage.js';
import type { Timers } from './timers.js';
import type { WebSocketFactory } from './websocket.js';

/** `revoked` (4403): the UI forgets the host; `unauthorized` (4401): not paired, or the host identity changed. */
export type StopReason = 'revoked' | 'unauthorized' | 'unsupported' | 'failed';

/** Ops for {@link HostConnection.request}: commands go through `submit`, subscriptions through `subscribeEvents`. */
export type RequestOpName = Exclude<OpName, CommandOpName | 'subscribe' | 'unsubscribe'>;

/** Where a connection is. `stopped` is final: the host refused this device. */
export type ConnectionStatus =
  | { state: 'connecting'; attempt: number }
  | { state: 'open'; connectionId: string; instanceId: string }
  /** Waiting `retryInMs` after a failure, until `retryAt` (ms since the epoch): a countdown. */
  | { state: 'waiting'; attempt: number; retryInMs: number; retryAt: number; error: TetherError }
  | {
      state: 'stopped';
      reason: StopReason;
      error: TetherError;
    }
  | { state: 'closed' };

/**
 * The host's condition as it last reported it (docs/protocol.md, "status"): `failed`
 * while its store cannot commit (every command is refused with `persistence_failed`,
 * reads work), with the host's `message` (the SQLite or errno code and its text).
 */
export interface HostHealth {
  persistence: 'ok' | 'failed';
  message?: string;
}

/** What a connection reports besides its state. */
export type ConnectionEvent =
  | { type: 'status'; hostId: string; status: ConnectionStatus }
  /** The welcome named a new runtime instance: the host restarted (cursors stay valid). */
  | { type: 'hostRestarted'; hostId: string; previousInstance: string; instance: string }
  /** A command left the outbox, answered for good (also those an earlier client sent). */
  | { type: 'commandSettled'; hostId: string; command: PendingCommand; outcome: CommandOutcome }
  /** The outbox was loaded from storage, or a command was stored in it or left it. */
  | { type: 'outboxChanged'; hostId: string; pending: readonly PendingCommand[] }
  | { type: 'subscriptionFailed'; hostId: string; scope: SubscribeScope; error: TetherError }
  /** The host said its store started or stopped failing (a `status` frame). */
  | ({ type: 'hostStatus'; hostId: string } & HostHealth)
  /** Something was dropped (an invalid message, a failed storage write); nothing stopped. */
  | { type: 'warning'; hostId: string; error: TetherError };

/** Timing of a host connection; tests shorten or fake it. */
export interface ConnectionSettings {
  /** Reconnect waits: full jitter from 300 ms up to 30 s. */
  backoff: BackoffOptions;
  keepalive: KeepaliveSettings;
  /** Default timeout of {@link HostConnection.request}, waiting for a connection included. */
  requestTimeoutMs: number;
  handshakeTimeoutMs: number;
  /** A connection open this long resets the backoff, and may rekey at once. */
  stableAfterMs: number;
}

/** The protocol's timings. */
export const DEFAULT_CONNECTION_SETTINGS: ConnectionSettings = {
  backoff: {},
  keepalive: DEFAULT_KEEPALIVE,
  requestTimeoutMs: 30_000,
  handshakeTimeoutMs: HANDSHAKE_TIMEOUT_MS,
  stableAfterMs: 10_000,
};

/** Why a connection stopped for good, from the error it stopped with. */
export function stopReason(error: TetherError): StopReason {
  switch (error.code) {
    case 'device_revoked':
      return 'revoked';
    case 'unauthorized':
      return 'unauthorized';
    case 'unsupported_version':
      return 'unsupported';
    default:
      return 'failed';
  }
}

/** A connection's record, storage and sockets; timers, randomness and settings for tests. */
export interface HostConnectionOptions {
  record: PairedHost;
  storage: ClientStorage;
  socketFactory: WebSocketFactory;
  timers?: Timers;
  randomBytes?: RandomBytes;
  /** The channel's primitives; default pairing's pure-JS one (a Node client passes a native one). */
  crypto?: ChannelCrypto;
  settings?: Partial<ConnectionSettings>;
}

/** The storage key of a host's outbox. */
export const outboxKey = (hostId: string) => `outbox/${hostId}`;
