/**
 * Writing each host's state to the cache: throttled while events stream, at once when a
 * run or approval record changed.
 */
import type { HostCache } from './host-cache.js';
import { sameCachedState } from './host-cache.js';
import type { HostEntry } from './host-entry.js';

/**
 * Longest a durable change waits before the cached state is written: one write per this
 * interval at most while events stream, and a reload soon after a change still finds it.
 */
const SAVE_DELAY_MS = 250;

/**
 * Writes the state after a change: at once when a run or approval record changed (what
 * the lists show, and rare) or after a quiet while, else when {@link SAVE_DELAY_MS} have
 * passed since the last write (a throttle: a steady stream does not postpone it).
 */
export function scheduleSave(
  entry: HostEntry,
  cache: HostCache,
  hosts: ReadonlyMap<string, HostEntry>,
): void {
  const { saved } = entry;
  const state = entry.connection.state.state;
  const records =
    saved === undefined || saved.runs !== state.runs || saved.approvals !== state.approvals;
  const wait = entry.savedAt + SAVE_DELAY_MS - Date.now();
  if (records || wait <= 0) {
    clearTimeout(entry.saveTimer);
    saveState(entry, cache, hosts);
    return;
  }
  entry.saveTimer ??= setTimeout(() => saveState(entry, cache, hosts), wait);
}

/**
 * Writes the state, unless only what the cache leaves out (live previews) changed or the
 * host is no longer `hosts`' (it was forgotten).
 */
export function saveState(
  entry: HostEntry,
  cache: HostCache,
  hosts: ReadonlyMap<string, HostEntry>,
): void {
  entry.saveTimer = undefined;
  if (hosts.get(entry.summary.hostId) !== entry) return;
  const state = entry.connection.state.state;
  if (entry.saved !== undefined && sameCachedState(entry.saved, state)) return;
  entry.saved = state;
  entry.savedAt = Date.now();
  cache.saveState(entry.summary.hostId, state).catch(() => {
    // The cache is a convenience: the next change tries again.
  });
}
