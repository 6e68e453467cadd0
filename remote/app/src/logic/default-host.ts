/**
 * The host a new task goes to unless the user picks another: a live one, else one that
 * may still connect, else the first (a host that refused this device never comes first
 * while another is there).
 */
import type { ConnectionStatus } from '#client';

/** The default host for a new task: a live one, else one that may connect, else the first. */
export function liveHostFirst<T extends { live: boolean; status: ConnectionStatus }>(
  hosts: readonly T[],
): T | undefined {
  return (
    hosts.find((host) => host.live) ??
    hosts.find((host) => host.status.state !== 'stopped' && host.status.state !== 'closed') ??
    hosts[0]
  );
}
