/**
 * Starts queued runs in FIFO order when their session is free and the host has room:
 * one active run per session, at most `maxActiveRuns` executing on the host. Runs parked
 * for approval hold their session but not a host slot; answered, they resume first: the
 * runtime hands the scheduler the run an answer unblocked ({@link RunScheduler.wake}), and
 * every parked run is looked at only at start, after approvals expired in bulk, and after
 * a halt (the store stays the truth).
 */
import { isPersistenceFailed, type Store } from '../store/index.js';
import { AgentRunExecutor } from './agent-run.js';
import { RunExecutor } from './run-executor.js';
import type { ExecutorDeps } from './run-frame.js';
import { moveRun } from './transitions.js';

export class RunScheduler {
  private readonly executing = new Map<string, RunExecutor | AgentRunExecutor>();
  private readonly finished = new Set<Promise<void>>();
  private accepting = true;
  /** Commits fail: nothing starts until {@link resume}. */
  private halted = false;
  /** Parked runs an answer may have unblocked, in the order they were handed over. */
  private readonly unblocked = new Set<string>();
  /** Every parked run is to be looked at by the next claim (at start: none was yet). */
  private lookAtAllParked = true;

  constructor(
    private readonly deps: ExecutorDeps,
    private readonly reportError: (error: unknown) => void,
  ) {}

  /** The executor of a run in progress, if it is executing now. */
  executor(runId: string): RunExecutor | AgentRunExecutor | undefined {
    return this.executing.get(runId);
  }

  /** Starts every queued run that may start now. Synchronous: claims commit before it returns. */
  kick(): void {
    const { store, limits } = this.deps;
    while (this.accepting && !this.halted && this.executing.size < limits.maxActiveRuns) {
      let next: string | undefined;
      try {
        next = this.claimNext(store);
      } catch (error) {
        // The store has closed its gate and the host halts; the caller's own commit stands.
        if (isPersistenceFailed(error)) return;
        throw error;
      }
      if (next === undefined) return;
      // A run of an ACP agent (docs/agents.md) is the agent's loop, not the host's.
      const executor =
        store.runs.getRun(next)?.agent === undefined
          ? new RunExecutor(this.deps, next)
          : new AgentRunExecutor(this.deps, next);
      this.executing.set(next, executor);
      const done = executor
        .execute()
        .catch((error: unknown) => this.reportError(error))
        .finally(() => {
          this.executing.delete(next);
          this.finished.delete(done);
          this.kick();
        });
      this.finished.add(done);
    }
  }

  /** An answer to one of `runId`'s approvals committed: it resumes if none is left waiting. */
  wake(runId: string): void {
    this.unblocked.add(runId);
    this.kick();
  }

  /** Approvals were resolved in bulk (they expired): every parked run is looked at again. */
  wakeAllParked(): void {
    this.lookAtAllParked = true;
    this.kick();
  }

  /** Stops starting runs, stops the executing ones as `reason`, and waits for them to end. */
  async drain(timeoutMs: number): Promise<void> {
    this.accepting = false;
    for (const executor of this.executing.values()) executor.stop('cancel');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([Promise.allSettled([...this.finished]), timeout]);
    clearTimeout(timer);
  }

  /**
   * Commits fail: starts nothing more and stops every executing run where it stands, so
   * nothing more happens and nothing more is recorded. Returns the runs it stopped.
   */
  halt(): string[] {
    this.halted = true;
    for (const executor of this.executing.values()) executor.stop('persistence');
    return [...this.executing.keys()];
  }

  /** Runs still executing (a halted run until its model request and tool have stopped). */
  get executingCount(): number {
    return this.executing.size;
  }

  /** Commits work again (and the stopped runs are recovered): starts what may start. */
  resume(): void {
    this.halted = false;
    // A claim whose commit failed had let go of its run: the store knows which are parked.
    this.lookAtAllParked = true;
    this.kick();
  }

  /** Wait for every executing run to end (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.finished.size > 0) await Promise.allSettled([...this.finished]);
  }

  /**
   * Claims the next run to execute, in one transaction: first a parked run whose approvals
   * have all been answered (it resumes), then the oldest queued run whose session is free.
   */
  private claimNext(store: Store): string | undefined {
    return store.write((tx) => {
      if (this.lookAtAllParked) {
        this.lookAtAllParked = false;
        for (const runId of store.runs.listParkedRunIds()) this.unblocked.add(runId);
      }
      for (const runId of this.unblocked) {
        // Still executing: it is parking now, and its end kicks the scheduler again.
        if (this.executing.has(runId)) continue;
        this.unblocked.delete(runId);
        const run = store.runs.getRun(runId);
        if (run?.state !== 'waiting_for_approval') continue;
        // Another call still waits: the answer to it hands the run over again.
        if (store.tools.listToolCallsInState(runId, ['waiting_for_approval']).length > 0) continue;
        moveRun(store, run, 'running', tx);
        return runId;
      }
      const queued = store.runs.listRuns({ states: ['queued'], limit: 500, order: 'oldest' });
      for (const run of queued) {
        const session = store.runs.getSession(run.sessionId);
        if (session === undefined || session.activeRunId !== null) continue;
        moveRun(store, run, 'running', tx);
        store.runs.setActiveRun(run.sessionId, run.id);
        tx.append({ type: 'run.started', sessionId: run.sessionId, runId: run.id, payload: {} });
        return run.id;
      }
      return undefined;
    });
  }
}
