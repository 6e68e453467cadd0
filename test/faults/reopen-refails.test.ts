/**
 * A disk that fails again just after the store reopened (issue 7, persistence-failed mode):
 * the work the host does once commits work again (expiring approvals, killing orphans) may
 * itself meet a failing commit, or fail otherwise. The probe must take that in its stride —
 * no exception out of its timer (that would end the host process), the gate closed again
 * and probed again — and once commits work it must resume the scheduler. A real SQLite
 * store made to fail by `max_page_count` (the page-limit control of the fault tests).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../host/runtime/testing.js';
import { LiveHub } from '../../host/runtime/live-hub.js';
import { PersistenceHealth } from '../../host/runtime/persistence-health.js';
import { RunScheduler } from '../../host/runtime/run-scheduler.js';
import { WorktreeRuns } from '../../host/runtime/worktree-runs.js';
import { isPersistenceFailed, Store } from '../../host/store/index.js';
import { tempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function eventually(done: () => boolean, what: string): Promise<true> {
  return until(what, () => (done() ? true : undefined), { timeout: 15_000, interval: 20 });
}

describe('the persistence probe after reopening', () => {
  it('survives a commit that fails again in the reopened hook, then resumes', async () => {
    const temp = tempDir('tether-reopen-', { realpath: false });
    const root = temp.path;
    const limitFile = join(root, 'max-pages');
    writeFileSync(limitFile, '');
    const errors: unknown[] = [];
    const store = await Store.open({
      dataDir: root,
      pageLimitFile: limitFile,
      reportError: (error) => errors.push(error),
    });
    cleanups.push(temp.remove);
    cleanups.push(() => store.db.close());
    const scheduler = new RunScheduler(
      {
        store,
        live: new LiveHub(() => null),
        model: null,
        tools: new Map(),
        policy: () => Promise.resolve({ decision: 'deny', reason: 'nothing runs here' }),
        limits: DEFAULT_LIMITS,
        worktrees: new WorktreeRuns(store, () => undefined),
      },
      (error) => errors.push(error),
    );
    // A commit that needs many new pages: refused for real while the file may not grow.
    const bigCommit = () =>
      store.write((tx) =>
        tx.append({ type: 'host.started', payload: { instance: 'x'.repeat(400_000) } }),
      );
    let reopenedCalls = 0;
    let resumedState: boolean | null = null;
    const resume = scheduler.resume.bind(scheduler);
    scheduler.resume = () => {
      resumedState = store.persistence.ok;
      resume();
    };
    const health = new PersistenceHealth(
      store,
      scheduler,
      {
        reopened: () => {
          reopenedCalls += 1;
          if (reopenedCalls === 1) {
            // The disk fills again between the reopening commit and the work after it.
            writeFileSync(limitFile, '+0');
            bigCommit();
          }
        },
        reportError: (error) => errors.push(error),
      },
      50,
    );
    health.start();
    cleanups.push(() => health.close());

    writeFileSync(limitFile, '+0');
    expect(() => bigCommit()).toThrow(expect.objectContaining({ code: 'persistence_failed' }));
    expect(store.persistence.ok).toBe(false);

    writeFileSync(limitFile, '');
    await eventually(() => reopenedCalls === 1, 'the first reopening');
    // The hook's commit failed: the gate is closed again, and the probe goes on.
    expect(store.persistence.ok).toBe(false);
    expect(resumedState).toBe(null);

    writeFileSync(limitFile, '');
    await eventually(() => reopenedCalls === 2 && resumedState !== null, 'the second reopening');
    expect(store.persistence.ok).toBe(true);
    expect(resumedState).toBe(true);
    expect(errors.filter((error) => !isPersistenceFailed(error))).toEqual([]);
  });

  it('resumes the scheduler even when the reopened hook fails for another reason', async () => {
    const temp = tempDir('tether-reopen-', { realpath: false });
    const root = temp.path;
    const limitFile = join(root, 'max-pages');
    writeFileSync(limitFile, '');
    const store = await Store.open({ dataDir: root, pageLimitFile: limitFile });
    cleanups.push(temp.remove);
    cleanups.push(() => store.db.close());
    const errors: unknown[] = [];
    const scheduler = new RunScheduler(
      {
        store,
        live: new LiveHub(() => null),
        model: null,
        tools: new Map(),
        policy: () => Promise.resolve({ decision: 'deny', reason: 'nothing runs here' }),
        limits: DEFAULT_LIMITS,
        worktrees: new WorktreeRuns(store, () => undefined),
      },
      (error) => errors.push(error),
    );
    let resumed = false;
    const resume = scheduler.resume.bind(scheduler);
    scheduler.resume = () => {
      resumed = true;
      resume();
    };
    const bug = new Error('a bug in the work after reopening');
    const health = new PersistenceHealth(
      store,
      scheduler,
      {
        reopened: () => {
          throw bug;
        },
        reportError: (error) => errors.push(error),
      },
      50,
    );
    health.start();
    cleanups.push(() => health.close());

    writeFileSync(limitFile, '+0');
    expect(() =>
      store.write((tx) =>
        tx.append({ type: 'host.started', payload: { instance: 'x'.repeat(400_000) } }),
      ),
    ).toThrow(expect.objectContaining({ code: 'persistence_failed' }));
    writeFileSync(limitFile, '');
    await eventually(() => store.persistence.ok, 'the reopening');
    await eventually(() => resumed, 'the scheduler to resume');
    expect(errors).toContain(bug);
  });
});
