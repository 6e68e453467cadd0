/**
 * One paired host inside the model: its connection and what the app learnt of it, and the
 * {@link HostView} the views get of it.
 */
import type {
  ConnectionStatus,
  HostConnection,
  HostHealth,
  HostState,
  PairedHostSummary,
  PendingCommand,
} from '#client';
import type { HostView } from './app-view.js';
import type { HostInfo } from './host-cache.js';
import type { OlderRuns } from './older-runs.js';

export interface HostEntry {
  summary: PairedHostSummary;
  connection: HostConnection;
  cached: HostState | undefined;
  /** The live state replaced the cached one (first subscribe answered). */
  caughtUp: boolean;
  status: ConnectionStatus;
  restartedAt: number | undefined;
  pending: readonly PendingCommand[];
  info: HostInfo | undefined;
  health: HostHealth | undefined;
  older: OlderRuns;
  saveTimer: ReturnType<typeof setTimeout> | undefined;
  /** The state last written to the cache, and when. */
  saved: HostState | undefined;
  savedAt: number;
  stop: () => void;
}

/**
 * The entry as the views see it: the cached state until the live one caught up; `label`
 * tells it apart from the other hosts (logic/host-labels.ts).
 */
export function hostView(entry: HostEntry, label: string): HostView {
  const { summary, connection } = entry;
  const state = entry.caughtUp ? connection.state.state : (entry.cached ?? connection.state.state);
  return {
    hostId: summary.hostId,
    hostName: summary.hostName,
    label,
    origin: summary.origin,
    deviceId: summary.deviceId,
    connection,
    cached: entry.cached,
    state,
    live: entry.caughtUp && entry.status.state === 'open',
    status: entry.status,
    restartedAt: entry.restartedAt,
    pending: entry.pending,
    info: entry.info,
    health: entry.health,
    older: entry.older,
  };
}
