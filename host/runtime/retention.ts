/**
 * What the store keeps only for a while, pruned at each start: commands at least 30 days
 * for deduplication (docs/protocol.md §6.1), and used or expired pairing offers only as
 * long as the admin page may ask about them. Attachments no run was given are swept by
 * upload-sweep.ts, at start and while the host runs.
 */
import type { Store } from '../store/index.js';

const COMMAND_RETENTION_MS = 31 * 24 * 60 * 60 * 1000;
const OFFER_RETENTION_MS = 24 * 60 * 60 * 1000;

export function pruneRetained(store: Store, now: number): void {
  store.write(() => {
    store.commands.pruneBefore(now - COMMAND_RETENTION_MS);
    store.offers.pruneExpired(now - OFFER_RETENTION_MS);
  });
}
