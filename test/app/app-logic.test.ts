import { describe, expect, it } from 'vitest';
import type { Event, Run } from '../../protocol/index.js';
import { type HostState } from '../../remote/client/index.js';
import { EMPTY_HOST_STATE } from '../../remote/client/testing.js';
import { appBanner, sendsNow } from '../../remote/app/src/logic/connection-view.js';
import { pairingDevice } from '../../remote/app/src/logic/device-name.js';
import { diffLines } from '../../remote/app/src/logic/diff-lines.js';
import { pairLinkAt, parseRoute, routeHash } from '../../remote/app/src/logic/route.js';
import { currentRetry, isSessionIdle } from '../../remote/app/src/logic/run-screen-view.js';
import {
  listedRuns,
  mayHaveOlderRuns,
  SNAPSHOT_RECENT_RUNS,
  sortRuns,
} from '../../remote/app/src/logic/run-view.js';

const workspace = '/Users/me/project';

function run(
  id: string,
  state: Run['state'],
  createdAt: number,
  startedAt: number | null = 1,
): Run {
  return {
    id,
    sessionId: 'ses_1',
    state,
    input: { text: id },
    model: null,
    createdAt,
    startedAt,
    finishedAt: null,
    continuesRunId: null,
    error: null,
  };
}

function event(seq: number, type: Event['type'], payload: Record<string, unknown> = {}): Event {
  return {
    v: 1,
    seq,
    id: `evt_${seq}`,
    type,
    at: seq,
    sessionId: 'ses_1',
    runId: 'run_1',
    toolCallId: null,
    payload,
  } as Event;
}

describe('routes', () => {
  it('round-trips screens through the hash', () => {
    const route = { screen: 'run', hostId: 'h/1', runId: 'run_2' } as const;
    expect(parseRoute(routeHash(route))).toEqual(route);
    expect(parseRoute('#/approvals')).toEqual({ screen: 'approvals' });
    expect(parseRoute('')).toEqual({ screen: 'runs' });
    expect(parseRoute('#/run/only-host')).toEqual({ screen: 'runs' });
    const changes = { screen: 'changes', hostId: 'h/1', runId: 'run_2' } as const;
    expect(routeHash(changes)).toBe('#/run/h%2F1/run_2/changes');
    expect(parseRoute(routeHash(changes))).toEqual(changes);
    // An unknown view of a run opens the run.
    expect(parseRoute('#/run/h/run_2/other')).toEqual({
      screen: 'run',
      hostId: 'h',
      runId: 'run_2',
    });
  });

  it('recognises a pairing link only in a #pair= fragment', () => {
    expect(pairLinkAt({ origin: 'http://localhost:8787', hash: '#pair=abc' })).toBe(
      'http://localhost:8787/#pair=abc',
    );
    expect(pairLinkAt({ origin: 'http://localhost:8787', hash: '#/pair' })).toBeUndefined();
  });
});

describe('device name', () => {
  it('uses the stored name, else the platform', () => {
    const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15';
    expect(pairingDevice(null, iphone)).toEqual({ name: 'iPhone', platform: 'iPhone' });
    expect(
      pairingDevice('  Kitchen iPad ', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7)', 5),
    ).toEqual({ name: 'Kitchen iPad', platform: 'iPad' });
    expect(pairingDevice('', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7)')).toEqual({
      name: 'Mac',
      platform: 'Mac',
    });
    expect(pairingDevice('x'.repeat(80), 'Linux').name).toHaveLength(64);
  });
});

describe('run view', () => {
  it('lists active runs first, newest first within each group', () => {
    const runs = [
      run('old-done', 'succeeded', 1),
      run('queued', 'queued', 2),
      run('running', 'running', 3),
      run('new-done', 'failed', 4),
    ];
    expect(sortRuns(runs).map((r) => r.id)).toEqual(['running', 'queued', 'new-done', 'old-done']);
  });

  it('lists the paged-in older runs after the active ones, each once, the live record winning', () => {
    const live = {
      running: run('running', 'running', 5),
      recent: run('recent', 'succeeded', 4),
    };
    const older = [
      run('recent', 'running', 4),
      run('old', 'failed', 2),
      run('older', 'cancelled', 1),
    ];
    expect(listedRuns(live, older).map((r) => `${r.id}:${r.state}`)).toEqual([
      'running:running',
      'recent:succeeded',
      'old:failed',
      'older:cancelled',
    ]);
  });

  it('expects older runs while a page points further or a snapshot may have cut the list', () => {
    const full = Object.fromEntries(
      Array.from({ length: SNAPSHOT_RECENT_RUNS }, (_, i) => [
        `r${i}`,
        run(`r${i}`, 'succeeded', i),
      ]),
    );
    const fresh = { next: undefined, done: false };
    expect(mayHaveOlderRuns(full, fresh)).toBe(true);
    const { r0: _dropped, ...fewer } = full;
    expect(mayHaveOlderRuns({ ...fewer, active: run('active', 'running', 99) }, fresh)).toBe(false);
    expect(mayHaveOlderRuns({}, { next: 'cursor', done: false })).toBe(true);
    expect(mayHaveOlderRuns(full, { next: undefined, done: true })).toBe(false);
  });

  it('frees the session at session.idle, not at run.finished', () => {
    const finished: HostState = {
      ...EMPTY_HOST_STATE,
      runs: { run_1: run('run_1', 'succeeded', 1) },
      sessions: {
        ses_1: { id: 'ses_1', title: '', workspace, createdAt: 1, activeRunId: 'run_1' },
      },
      timelines: {
        run_1: [event(1, 'run.started'), event(2, 'run.finished', { state: 'succeeded' })],
      },
    };
    expect(isSessionIdle(finished, 'run_1')).toBe(false);
    const idle = {
      ...finished,
      timelines: { run_1: [...finished.timelines['run_1']!, event(3, 'session.idle')] },
    };
    expect(isSessionIdle(idle, 'run_1')).toBe(true);
    const running = { ...finished, runs: { run_1: run('run_1', 'running', 1) } };
    expect(isSessionIdle(running, 'run_1')).toBe(false);
  });

  it('shows the last model retry until a message completes', () => {
    const retry = event(2, 'model.retry', {
      attempt: 2,
      maxAttempts: 5,
      delayMs: 10,
      reason: 'rate limited',
    });
    const running = run('run_1', 'running', 1);
    expect(currentRetry(running, [event(1, 'run.started'), retry])).toEqual({
      attempt: 2,
      maxAttempts: 5,
      reason: 'rate limited',
    });
    expect(
      currentRetry(running, [
        retry,
        event(3, 'message.completed', { messageId: 'm', text: '', finishReason: 'stop' }),
      ]),
    ).toBeUndefined();
  });

  it('drops the retry notice once the run is final, as when it failed after its last retry', () => {
    const lastRetry = event(2, 'model.retry', {
      attempt: 5,
      maxAttempts: 5,
      delayMs: 10,
      reason: 'rate limited',
    });
    const timeline = [event(1, 'run.started'), lastRetry];
    expect(currentRetry(run('run_1', 'waiting_for_approval', 1), timeline)?.attempt).toBe(5);
    for (const state of ['failed', 'cancelled', 'interrupted', 'succeeded'] as const) {
      expect(currentRetry(run('run_1', state, 1), timeline)).toBeUndefined();
    }
  });
});

describe('connection banner', () => {
  const link = (
    status: Parameters<typeof appBanner>[0][number]['status'],
    restartedAt?: number,
  ) => ({ hostId: 'h1', label: 'Mac', status, restartedAt });

  it('says reconnecting with the attempt, offline without network, the most troubled host winning', () => {
    const open = link({ state: 'open', connectionId: 'c', instanceId: 'i' });
    expect(appBanner([open], true, 0).status).toBe('live');
    const waiting = link({ state: 'connecting', attempt: 3 });
    expect(appBanner([open, waiting], true, 0)).toMatchObject({
      status: 'reconnecting',
      text: 'Mac: reconnecting (attempt 3)',
    });
    expect(appBanner([open, waiting], false, 0).status).toBe('offline');
    expect(appBanner([link({ state: 'connecting', attempt: 0 })], true, 0).status).toBe(
      'connecting',
    );
  });

  it('says offline without network even while the socket looks open, and commands wait then', () => {
    const openStatus = { state: 'open', connectionId: 'c', instanceId: 'i' } as const;
    expect(appBanner([link(openStatus)], false, 0)).toMatchObject({
      status: 'offline',
      text: 'Offline: showing what was last seen',
    });
    expect(appBanner([link(openStatus, 1_000)], false, 2_000).status).toBe('offline');
    expect(sendsNow(openStatus, true)).toBe(true);
    expect(sendsNow(openStatus, false)).toBe(false);
    expect(sendsNow({ state: 'connecting', attempt: 1 }, true)).toBe(false);
  });

  it('says host restarted for a while after reconnecting to a new instance', () => {
    const restarted = link({ state: 'open', connectionId: 'c', instanceId: 'i2' }, 1_000);
    expect(appBanner([restarted], true, 2_000).status).toBe('host-restarted');
    expect(appBanner([restarted], true, 60_000).status).toBe('live');
  });
});

describe('diff lines', () => {
  it('classifies additions, removals, hunks and headers', () => {
    expect(
      diffLines('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same\n').map((line) => line.kind),
    ).toEqual(['header', 'header', 'hunk', 'remove', 'add', 'context']);
  });
});
