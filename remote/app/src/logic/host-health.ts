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
