/**
 * A session's own worktree as the remote holds it (remote/client/session-worktree.ts,
 * docs/worktrees.md): a snapshot's `worktree` kept current by `run.result` and
 * `run.integrated` through the real state store, and which run is ready to review: the
 * session's newest, ended, with commits past the base, not yet answered.
 */
import { describe, expect, it } from 'vitest';
import type { Event, Run } from '../../protocol/index.js';
import { runsToReview, worktreeOf } from '../../remote/client/index.js';
import { HostStateStore } from '../../remote/client/testing.js';

const BASE = 'a'.repeat(40);
const HEAD = 'b'.repeat(40);
const TREE = 'c'.repeat(40);

function run(id: string, state: Run['state'], createdAt: number): Run {
  return {
    id,
    sessionId: 'ses_1',
    state,
    input: { text: id },
    model: null,
    createdAt,
    startedAt: createdAt,
    finishedAt: null,
    continuesRunId: null,
    error: null,
  };
}

function event(seq: number, type: Event['type'], runId: string, payload: object): Event {
  return {
    v: 1,
    seq,
    id: `evt_${seq}`,
    type,
    at: seq,
    sessionId: 'ses_1',
    runId,
    toolCallId: null,
    payload,
  } as Event;
}

/** A store whose snapshot holds one worktree session with `runs`, nothing committed yet. */
function storeWith(runs: Run[], worktree: object | undefined): HostStateStore {
  const store = new HostStateStore();
  store.applySnapshot(
    {},
    {
      sessions: [
        {
          id: 'ses_1',
          title: 't',
          workspace: '/w',
          createdAt: 1,
          activeRunId: null,
          ...(worktree === undefined ? {} : { worktree }),
        },
      ],
      runs,
      pendingApprovals: [],
      devices: [],
    },
    10,
  );
  return store;
}

const OPEN = { branch: 'tether/abc', base: BASE, state: 'active', head: null, treeDigest: null };

describe('a session’s worktree in the remote’s state', () => {
  it('is ready to review on its newest ended run once a result committed past the base', () => {
    const store = storeWith([run('run_1', 'succeeded', 1), run('run_2', 'succeeded', 2)], OPEN);
    expect(runsToReview(store.state)).toEqual(new Set());
    store.applyEvents([
      event(11, 'run.result', 'run_2', {
        branch: 'tether/abc',
        base: BASE,
        head: HEAD,
        treeDigest: TREE,
        committed: true,
        files: [],
        stat: { files: 1, additions: 1, deletions: 0 },
      }),
    ]);
    expect(worktreeOf(store.state.sessions['ses_1'])).toEqual({
      ...OPEN,
      head: HEAD,
      treeDigest: TREE,
    });
    expect(runsToReview(store.state)).toEqual(new Set(['run_2']));

    store.applyEvents([
      event(12, 'run.integrated', 'run_1', { action: 'keep', treeDigest: TREE, by: 'dev_1' }),
    ]);
    expect(worktreeOf(store.state.sessions['ses_1'])?.state).toBe('kept');
    expect(runsToReview(store.state)).toEqual(new Set());
  });

  it('is not ready while a run works or waits, nor with nothing past its base', () => {
    const atBase = { ...OPEN, head: BASE, treeDigest: TREE };
    expect(runsToReview(storeWith([run('run_1', 'succeeded', 1)], atBase).state)).toEqual(
      new Set(),
    );
    const committed = { ...OPEN, head: HEAD, treeDigest: TREE };
    const queued = storeWith([run('run_1', 'succeeded', 1), run('run_2', 'queued', 2)], committed);
    expect(runsToReview(queued.state)).toEqual(new Set());
    expect(runsToReview(storeWith([run('run_1', 'succeeded', 1)], committed).state)).toEqual(
      new Set(['run_1']),
    );
  });

  it('makes the record from a result for a session seen made without one', () => {
    const store = storeWith([run('run_1', 'succeeded', 1)], undefined);
    expect(worktreeOf(store.state.sessions['ses_1'])).toBeUndefined();
    store.applyEvents([
      event(11, 'run.result', 'run_1', {
        branch: 'tether/abc',
        base: BASE,
        head: HEAD,
        treeDigest: TREE,
        committed: true,
        files: [],
        stat: { files: 1, additions: 1, deletions: 0 },
      }),
    ]);
    expect(worktreeOf(store.state.sessions['ses_1'])).toEqual({
      ...OPEN,
      head: HEAD,
      treeDigest: TREE,
    });
    // An answer to a session the remote holds no worktree for changes nothing.
    const plain = storeWith([run('run_1', 'succeeded', 1)], undefined);
    plain.applyEvents([
      event(11, 'run.integrated', 'run_1', { action: 'merge', treeDigest: TREE, by: 'd' }),
    ]);
    expect(worktreeOf(plain.state.sessions['ses_1'])).toBeUndefined();
  });
});
