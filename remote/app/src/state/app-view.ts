/**
 * What the views read: one immutable {@link AppView}, each paired host as a {@link HostView}.
 */
import type {
  ConnectionStatus,
  HostConnection,
  HostHealth,
  HostState,
  PendingCommand,
} from '#client';
import type { HostInfo } from './host-cache.js';
import type { OlderRuns } from './older-runs.js';

/** One paired host as the views see it. */
export interface HostView {
  hostId: string;
  hostName: string;
  /** The name to show: `hostName`, with its address or id added when another host shares it. */
  label: string;
  origin: string;
  /** This device's id on that host. */
  deviceId: string;
  connection: HostConnection;
  /** The host's state: live once subscribed, else the cached last known state. */
  state: HostState;
  /** The state cached when the app opened, if any (shown in `state` until caught up). */
  cached: HostState | undefined;
  /** True while connected and caught up; false means the data shown may be stale. */
  live: boolean;
  status: ConnectionStatus;
  restartedAt: number | undefined;
  /** Commands stored and not answered yet, oldest first. */
  pending: readonly PendingCommand[];
  info: HostInfo | undefined;
  /**
   * What the host last said of its condition (`failed`: it cannot save and refuses every
   * command); undefined when it said nothing since it last connected.
   */
  health: HostHealth | undefined;
  older: OlderRuns;
}

/** Everything the views show. */
export interface AppView {
  /** False until the stored hosts were read. */
  loaded: boolean;
  hosts: readonly HostView[];
  online: boolean;
  /** The host that revoked this device, until the user pairs again. */
  revokedFrom: string | undefined;
  /** Tasks a host refused that this device keeps for the user (state/upload-jobs.ts). */
  refusedTasks: number;
}
