/**
 * What the user is told while a host cannot save (docs/operations.md, "When the disk
 * fills"); apart from host-health.ts, so the first load does not carry these words.
 */
import type { HostHealth } from '#client';

/** What the user is told while `hostName` cannot save; undefined while it can. */
export function persistenceWarning(
  hostName: string,
  health: HostHealth | undefined,
): string | undefined {
  if (health?.persistence !== 'failed') return undefined;
  return (
    `${hostName} cannot save right now (its disk may be full): nothing new will run until ` +
    'it can. Approvals and new tasks will be refused.'
  );
}
