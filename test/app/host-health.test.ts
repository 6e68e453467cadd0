/**
 * The "cannot save" warning: `host.info`'s `persistence` read as a condition, and the
 * words shown while it is `failed`.
 */
import { describe, expect, it } from 'vitest';
import { healthFromInfo } from '../../remote/app/src/logic/host-health.js';
import { persistenceWarning } from '../../remote/app/src/logic/persistence-warning.js';

describe('healthFromInfo', () => {
  it('reads ok and failed, keeping the host message', () => {
    expect(healthFromInfo({ persistence: { ok: true } })).toEqual({ persistence: 'ok' });
    expect(
      healthFromInfo({ persistence: { ok: false, since: 1, message: 'SQLITE_FULL: full' } }),
    ).toEqual({ persistence: 'failed', message: 'SQLITE_FULL: full' });
    expect(healthFromInfo({ persistence: { ok: false } })).toEqual({ persistence: 'failed' });
  });

  it('says nothing for a host that does not report it, or reports it oddly', () => {
    expect(healthFromInfo({ name: 'Mac' })).toBeUndefined();
    expect(healthFromInfo({ persistence: null })).toBeUndefined();
    expect(healthFromInfo({ persistence: 'failed' })).toBeUndefined();
    expect(healthFromInfo({ persistence: { ok: 'no' } })).toBeUndefined();
  });
});

describe('persistenceWarning', () => {
  it('warns, naming the host, only while its store fails', () => {
    const text = persistenceWarning('Studio Mac', { persistence: 'failed', message: 'ENOSPC' });
    expect(text).toBe(
      'Studio Mac cannot save right now (its disk may be full): nothing new will run until ' +
        'it can. Approvals and new tasks will be refused.',
    );
    expect(persistenceWarning('Studio Mac', { persistence: 'ok' })).toBeUndefined();
    expect(persistenceWarning('Studio Mac', undefined)).toBeUndefined();
  });
});
