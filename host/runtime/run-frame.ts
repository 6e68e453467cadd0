/**
 * What every executor of a run shares, the built-in loop's (run-executor.ts) and an ACP
 * agent's (agent-run.ts): the stop with its reason (persistence wins), the wall-time timer
 * around the work, the run's worktree committed as it ends, and the run's end recorded
 * (its result, cancelled / succeeded / failed) before `session.idle`.
 */
import { errorMessage, type RunFailure, type RunResult } from '../../protocol/index.js';
import { faultPoint } from '../faults/index.js';
import { isPersistenceFailed, type Store, type StoredRun } from '../store/index.js';
import type { LiveHub } from './live-hub.js';
import { finishRun, markSessionIdle, moveRun } from './transitions.js';
import type { AgentLauncher, PolicyFn, RuntimeLimits, RuntimeModel, ToolTable } from './types.js';
import type { OpenWorktree, WorktreeRuns } from './worktree-runs.js';

/** What an executor works with. */
export interface ExecutorDeps {
  store: Store;
  live: LiveHub;
  model: RuntimeModel | null;
  tools: ToolTable;
  policy: PolicyFn;
  limits: RuntimeLimits;
  worktrees: WorktreeRuns;
  /** The ACP agents runs may be given to; null: none is configured. */
  agents?: AgentLauncher | null;
}

/**
 * `persistence`: commits fail; the run is left as last committed for recovery to settle.
 * `refused`: what the run was sent passed a bound (its failure says which).
 */
export type StopReason = 'cancel' | 'wall_time' | 'persistence' | 'refused';

export abstract class RunFrame {
  protected readonly controller = new AbortController();
  protected stopReason: StopReason | null = null;
  /** The session's own worktree the run works in, once opened; null: the workspace. */
  protected worktree: OpenWorktree | null = null;
  /** Why the run was refused, once it was (`refused`). */
  private refusal: RunFailure | null = null;

  constructor(
    protected readonly deps: ExecutorDeps,
    readonly runId: string,
  ) {}

  /** Stops the run: aborts what it waits on; nothing new starts after. */
  stop(reason: StopReason): void {
    // Nothing can be recorded any more, not even a cancellation: persistence wins.
    this.stopReason = reason === 'persistence' ? reason : (this.stopReason ?? reason);
    this.controller.abort();
  }

  /** Stops the run, which ends failed with `failure` (unless it was stopped before). */
  protected refuse(failure: RunFailure): void {
    this.refusal ??= failure;
    this.stop('refused');
  }

  /** The run's work within its wall time; its live previews gone after. */
  async execute(): Promise<void> {
    const timer = setTimeout(() => this.stop('wall_time'), this.deps.limits.runWallTimeMs);
    try {
      await this.work();
    } finally {
      clearTimeout(timer);
      this.deps.live.endRun(this.runId);
    }
  }

  /** The run from start to its recorded end. */
  protected abstract work(): Promise<void>;

  /** True once commits fail (read through a method: `stop` may set it meanwhile). */
  protected persistenceLost(): boolean {
    return this.stopReason === 'persistence';
  }

  protected run(): StoredRun {
    const run = this.deps.store.runs.getRun(this.runId);
    if (run === undefined) throw new Error(`no run ${this.runId}`);
    return run;
  }

  /** A store write that fails stops the run where it stands (recovery settles it). */
  protected guarded<T>(write: () => T): T | null {
    try {
      return write();
    } catch (error) {
      if (!isPersistenceFailed(error)) throw error;
      this.stop('persistence');
      return null;
    }
  }

  /** The failure a stopped run ends with (a cancelled run ends `cancelled` whatever it says). */
  protected stoppedFailure(): RunFailure {
    if (this.stopReason === 'refused' && this.refusal !== null) return this.refusal;
    if (this.stopReason === 'wall_time') {
      return {
        code: 'wall_time_exceeded',
        message: `the run took longer than ${this.deps.limits.runWallTimeMs} ms`,
      };
    }
    return { code: 'cancelled', message: 'cancelled' };
  }

  /**
   * A worktree run's files committed on its branch as it ends: the result to record with
   * its end. A commit that fails leaves the files in the worktree and is the run's failure.
   */
  protected async commitWorktree(): Promise<{
    failure: RunFailure | null;
    result: RunResult | null;
  }> {
    const worktree = this.worktree;
    if (worktree === null) return { failure: null, result: null };
    try {
      return { failure: null, result: await this.deps.worktrees.commit(this.run(), worktree) };
    } catch (error) {
      const message = `the run's files could not be committed on ${worktree.branch} (they are still in ${worktree.path}): ${errorMessage(error)}`;
      return { failure: { code: 'internal', message }, result: null };
    }
  }

  /**
   * Records the run's end (with its worktree's result, when it has one): cancelled when it
   * was cancelled, else succeeded without a failure, else failed; then, with everything
   * flushed and released, `session.idle`. Its calls and approvals are settled before.
   */
  protected recordEnd(failure: RunFailure | null, result: RunResult | null): void {
    const { store } = this.deps;
    store.write((tx) => {
      let run = this.run();
      if (result !== null) this.deps.worktrees.record(tx, run, result);
      if (this.stopReason === 'cancel' || run.state === 'cancelling') {
        if (run.state !== 'cancelling') run = moveRun(store, run, 'cancelling', tx);
        finishRun(store, run, 'cancelled', tx, { reason: 'cancelled' });
        return;
      }
      if (run.state === 'waiting_for_approval') run = moveRun(store, run, 'running', tx);
      if (failure === null) finishRun(store, run, 'succeeded', tx);
      else finishRun(store, run, 'failed', tx, { reason: failure.code, error: failure });
    });
    faultPoint('run-finished');
    store.write((tx) => markSessionIdle(store, this.run(), tx));
  }
}
