/**
 * The warning shown while a host cannot save (docs/operations.md, "When the disk fills"):
 * its condition, from its `status` frames or from `host.info`'s `persistence`.
 */
import type { HostHealth } from '#client';

/**
 * `host.info`'s `persistence` (`{ok: true}` or `{ok: false, since, message}`) as a
 * condition; undefined when the host does not say (an older host) or says it oddly.
 */
export function healthFromInfo(info: Record<string, unknown>): HostHealth | undefined {
  const value = info['persistence'];
  if (typeof value !== 'object' || value === null) return undefined;
  const { ok, message } = value as { ok?: unknown; message?: unknown };
  if (typeof ok !== 'boolean') return undefined;
  if (ok) return { persistence: 'ok' };
  return typeof message === 'string'
    ? { persistence: 'failed', message }
    : { persistence: 'failed' };
}

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
