/**
 * Runs in their own git worktree (docs/worktrees.md): the folder a run's tools work in,
 * made when its session's first run starts; the commit and `run.result` at each run's
 * end; the review, and the user's one answer (`run.integrate`: merge, keep or discard),
 * bound to the tree they reviewed, first answer wins; and at start, what a host that
 * stopped left half done.
 */
import { existsSync } from 'node:fs';
import {
  TetherError,
  isTerminalRunState,
  type OpArgs,
  type IntegrateResult,
  type RunResult,
  type RunReview,
} from '../../protocol/index.js';
import type {
  PendingIntegration,
  Store,
  StoredRun,
  StoredWorktree,
  WriteContext,
} from '../store/index.js';
import {
  branchTree,
  changedFiles,
  commitWorktree,
  createWorktree,
  currentBranch,
  mergeIntoCheckout,
  removeWorktree,
  worktreeDiffs,
} from '../worktrees/index.js';
import type { Actor } from './types.js';

/** A session's worktree, made: its own git folder known. */
export type OpenWorktree = StoredWorktree & { gitDir: string };

/** Most bytes of one file's diff `run.review` carries inline. */
const REVIEW_FILE_DIFF_BYTES = 64 * 1024;
/** Most bytes of diffs one `run.review` answer carries, all files together. */
const REVIEW_TOTAL_DIFF_BYTES = 512 * 1024;

export class WorktreeRuns {
  /** Sessions whose worktree is being settled or answered now: one git job at a time. */
  private readonly busy = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: Store,
    private readonly reportError: (error: unknown) => void,
  ) {}

  /** The session's worktree, made now if it is not yet; null when the session has none. */
  async open(sessionId: string): Promise<OpenWorktree | null> {
    await this.busy.get(sessionId);
    const row = this.store.worktrees.get(sessionId);
    if (row === undefined) return null;
    if (row.state !== 'active') {
      throw new Error(`the session's worktree was ${row.state}: start a new task`);
    }
    const gitDir = await createWorktree(row);
    if (row.gitDir !== gitDir) {
      this.store.write(() => this.store.worktrees.setGitDir(sessionId, gitDir));
    }
    return { ...row, gitDir };
  }

  /** Commits the worktree's files at a run's end: the `run.result` to record with its end. */
  async commit(run: StoredRun, worktree: OpenWorktree): Promise<RunResult> {
    const commit = await commitWorktree(
      worktree,
      { name: `Tether run ${run.id}`, email: 'tether@localhost' },
      `${run.input.text.trim() || 'Tether run'}\n\nTether run ${run.id}`,
    );
    const change = await changedFiles(worktree.repository, worktree.base, commit.head);
    return {
      branch: worktree.branch,
      base: worktree.base,
      head: commit.head,
      treeDigest: commit.tree,
      committed: commit.committed,
      files: change.files,
      stat: change.stat,
    };
  }

  /** Records a run's result in `tx`, the transaction that records its end. */
  record(tx: WriteContext, run: StoredRun, result: RunResult): void {
    this.store.worktrees.setHead(run.sessionId, result.head, result.treeDigest);
    tx.append({ type: 'run.result', sessionId: run.sessionId, runId: run.id, payload: result });
  }

  /**
   * The worktree of a session no run works in now, whose last run ended without its
   * executor (cancelled while it waited, interrupted by a stop): its files committed and
   * that run's result recorded, when they differ from what was recorded.
   */
  settle(sessionId: string): Promise<void> {
    return this.exclusive(sessionId, async () => {
      const row = this.store.worktrees.get(sessionId);
      if (row?.state !== 'active' || row.gitDir === null || !existsSync(row.path)) return;
      if (this.store.runs.getSession(sessionId)?.activeRunId !== null) return;
      const [last] = this.store.runs.listRuns({ sessionId, limit: 1 });
      if (last === undefined || !isTerminalRunState(last.state)) return;
      const result = await this.commit(last, { ...row, gitDir: row.gitDir });
      if (result.head === row.head) return;
      this.store.write((tx) => this.record(tx, last, result));
    });
  }

  /**
   * The user's answer to a review. Merge applies only while the branch has exactly the
   * reviewed tree; a conflict or a checkout the merge would overwrite changes nothing.
   * Deduplicated by commandId; the first answer wins, a later one is `invalid_state`.
   */
  async integrate(args: OpArgs<'run.integrate'>, by: Actor): Promise<IntegrateResult> {
    const { store } = this;
    const command = { commandId: args.commandId, op: 'run.integrate', args, deviceId: by };
    if (store.commands.find(args.commandId) !== undefined) {
      return store.applyCommand<IntegrateResult>(command, (): IntegrateResult => {
        throw new Error('unreachable: the command is recorded');
      }).result;
    }
    const run = store.runs.getRun(args.runId);
    if (run === undefined) throw new TetherError('not_found', `no run ${args.runId}`);
    const row = store.worktrees.get(run.sessionId);
    if (row === undefined) {
      throw new TetherError('invalid_request', `run ${run.id} did not work in its own worktree`);
    }
    if (row.pending !== null || this.busy.has(row.sessionId)) {
      throw new TetherError(
        'invalid_state',
        'another answer to this review is being applied: look again in a moment',
      );
    }
    if (row.state !== 'active') {
      throw new TetherError('invalid_state', `this worktree was already ${row.state}`, {
        details: { state: row.state },
      });
    }
    if (store.runs.getSession(run.sessionId)?.activeRunId !== null) {
      throw new TetherError(
        'invalid_state',
        'a run is still working in this worktree: wait for it to end, or cancel it',
      );
    }
    if (row.head === null || row.tree === null) {
      throw new TetherError(
        'invalid_state',
        'no run has ended in this worktree yet: nothing to review',
      );
    }
    const pending: PendingIntegration = {
      action: args.action,
      commandId: args.commandId,
      runId: run.id,
      treeDigest: args.treeDigest,
      by,
    };
    return this.exclusive(row.sessionId, async () => {
      store.write(() => store.worktrees.setPending(row.sessionId, pending));
      let applied: IntegrateResult;
      try {
        const tree = await branchTree(row.repository, row.branch);
        if (args.treeDigest !== row.tree || tree !== row.tree) {
          throw new TetherError(
            'digest_mismatch',
            `${row.branch} changed since this review: review it again`,
            { details: { treeDigest: tree ?? row.tree } },
          );
        }
        applied = await this.apply(row, args.action);
      } catch (error) {
        store.write(() => store.worktrees.setPending(row.sessionId, null));
        throw error;
      }
      return store.applyCommand(command, (tx) => {
        this.recordAnswer(tx, row, pending, applied);
        return applied;
      }).result;
    });
  }

  /** The session's branch against its base, for the review screen and `tether remote review`. */
  async review(runId: string): Promise<RunReview> {
    const run = this.store.runs.getRun(runId);
    if (run === undefined) throw new TetherError('not_found', `no run ${runId}`);
    const row = this.store.worktrees.get(run.sessionId);
    if (row === undefined) {
      throw new TetherError('invalid_request', `run ${runId} did not work in its own worktree`);
    }
    const busy = this.store.runs.getSession(run.sessionId)?.activeRunId !== null;
    const into = existsSync(row.repository) ? await currentBranch(row.repository) : null;
    const empty = { files: [], stat: { files: 0, additions: 0, deletions: 0 } };
    const change =
      row.head === null || row.state !== 'active'
        ? empty
        : await changedFiles(row.repository, row.base, row.head);
    const diffs =
      row.head === null || row.state !== 'active'
        ? []
        : await worktreeDiffs(row.repository, row.base, row.head);
    let total = 0;
    const files = change.files.map((file, i) => {
      const diff = diffs[i];
      // Past what the host reads of a very large change.
      if (diff === undefined) return { ...file, diffCut: true };
      const bytes = Buffer.byteLength(diff);
      if (bytes > REVIEW_FILE_DIFF_BYTES || total + bytes > REVIEW_TOTAL_DIFF_BYTES) {
        return { ...file, diffCut: true };
      }
      total += bytes;
      return { ...file, diff };
    });
    return {
      sessionId: row.sessionId,
      branch: row.branch,
      base: row.base,
      state: row.state,
      head: row.head,
      treeDigest: row.tree,
      into,
      busy,
      files,
      stat: change.stat,
      at: Date.now(),
    };
  }

  /**
   * At start: answers a stopped host was applying are finished (or dropped, when git can
   * no longer apply them: the device asks again); worktrees whose last run ended
   * without its executor are settled; one deleted by hand with its branch is recorded
   * as discarded.
   */
  async recover(): Promise<void> {
    for (const row of this.store.worktrees.listOpen()) {
      try {
        if (row.pending !== null) {
          await this.finishPending(row, row.pending);
        } else if (
          !existsSync(row.path) &&
          (await branchTree(row.repository, row.branch)) === null
        ) {
          await removeWorktree(row, false).catch(() => undefined);
          this.store.write((tx) =>
            this.recordAnswer(
              tx,
              row,
              {
                action: 'discard',
                commandId: '',
                runId:
                  this.store.runs.listRuns({ sessionId: row.sessionId, limit: 1 })[0]?.id ?? '',
                treeDigest: row.tree ?? '',
                by: 'host',
              },
              { state: 'discarded' },
            ),
          );
        } else {
          await this.settle(row.sessionId);
        }
      } catch (error) {
        this.reportError(error);
      }
    }
  }

  private async finishPending(row: StoredWorktree, pending: PendingIntegration): Promise<void> {
    const run = this.store.runs.getRun(pending.runId);
    let applied: IntegrateResult;
    try {
      if (run === undefined || row.tree !== pending.treeDigest) throw new Error('not applicable');
      applied = await this.apply(row, pending.action);
    } catch {
      this.store.write(() => this.store.worktrees.setPending(row.sessionId, null));
      return;
    }
    const command = {
      commandId: pending.commandId,
      op: 'run.integrate' as const,
      args: {
        commandId: pending.commandId,
        runId: pending.runId,
        action: pending.action,
        treeDigest: pending.treeDigest,
      },
      deviceId: pending.by,
    };
    this.store.applyCommand(command, (tx) => {
      this.recordAnswer(tx, row, pending, applied);
      return applied;
    });
  }

  /** Does what the answer says in git; throws, having changed nothing, when it cannot. */
  private async apply(
    row: StoredWorktree,
    action: PendingIntegration['action'],
  ): Promise<IntegrateResult> {
    if (action !== 'merge') {
      await removeWorktree(row, action === 'discard');
      return { state: action === 'keep' ? 'kept' : 'discarded' };
    }
    if (row.head === null) throw new TetherError('invalid_state', 'nothing was committed to merge');
    const title = this.store.runs.getSession(row.sessionId)?.title ?? '';
    const outcome = await mergeIntoCheckout(
      row.repository,
      row.head,
      `Merge ${row.branch}: ${title}`,
    );
    if (outcome.kind === 'conflict') {
      throw new TetherError(
        'merge_conflict',
        `merging ${row.branch} into ${outcome.into} conflicts in ${outcome.files.join(', ')}: nothing changed; the branch stays for you to merge by hand, or discard it`,
        { details: { into: outcome.into, files: outcome.files } },
      );
    }
    if (outcome.kind === 'refused') {
      throw new TetherError('invalid_state', outcome.reason, {
        details: {
          reason: 'checkout',
          ...(outcome.files === undefined ? {} : { files: outcome.files }),
        },
      });
    }
    // Merged: the branch is in the checkout's history; its folder and name go.
    await removeWorktree(row, true).catch((error: unknown) => this.reportError(error));
    return { state: 'merged', into: outcome.into, commit: outcome.commit, how: outcome.how };
  }

  private recordAnswer(
    tx: WriteContext,
    row: StoredWorktree,
    pending: PendingIntegration,
    applied: IntegrateResult,
  ): void {
    this.store.worktrees.end(row.sessionId, applied.state, tx.at);
    tx.append({
      type: 'run.integrated',
      sessionId: row.sessionId,
      runId: pending.runId,
      payload: {
        action: pending.action,
        treeDigest: pending.treeDigest,
        by: pending.by,
        ...(applied.into === undefined ? {} : { into: applied.into }),
        ...(applied.commit === undefined ? {} : { commit: applied.commit }),
        ...(applied.how === undefined ? {} : { how: applied.how }),
      },
    });
  }

  /** Runs `job` while no other git job of the session runs. */
  private exclusive<T>(sessionId: string, job: () => Promise<T>): Promise<T> {
    const before = this.busy.get(sessionId) ?? Promise.resolve();
    const next = before.then(job, job);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.busy.set(sessionId, tail);
    void tail.then(() => {
      if (this.busy.get(sessionId) === tail) this.busy.delete(sessionId);
    });
    return next;
  }
}
