/**
 * The review of a run that worked on its own branch (docs/worktrees.md), on its run
 * screen: the branch, its base, what it changed with each file's diff, and the one answer,
 * Merge into the checkout's branch, Keep the branch, or Discard (Merge and Discard take a
 * second tap). The answer goes through the outbox bound to the tree shown; once answered,
 * here or on another device, it says what was done. A chunk of its own.
 */
import { useState } from 'preact/hooks';
import { ConfirmButtons } from './confirm-buttons.js';
import {
  IntegrateResult,
  isTerminalRunState,
  type IntegrateAction,
  type Run,
  type RunReview,
  TetherError,
} from '#protocol';
import { type HeldWorktree, visibleText, worktreeOf } from '#client';
import { useReview } from '../hooks/use-review.js';
import { useSubmit } from '../hooks/use-submit.js';
import { routeHash } from '../logic/route.js';
import {
  answeredBy,
  type Integration,
  integrationOf,
  integrationText,
  statText,
} from '../logic/review-text.js';
import type { HostView } from '../state/app-view.js';
import { ReviewFiles } from './review-files.js';

export function WorktreeReview({ host, run }: { host: HostView; run: Run }) {
  const session = host.state.sessions[run.sessionId];
  const worktree = worktreeOf(session);
  if (worktree === undefined) return null;
  const runs = Object.values(host.state.runs).filter((r) => r.sessionId === run.sessionId);
  const newest = runs.reduce((last, r) => (r.createdAt > last.createdAt ? r : last), run);
  const branch = visibleText(worktree.branch);
  let body;
  if (worktree.state !== 'active') {
    body = <Answered host={host} runs={runs} worktree={worktree} />;
  } else if (!isTerminalRunState(run.state) || session?.activeRunId !== null) {
    body = <p class="muted">The run works on this branch; its review comes when it ends.</p>;
  } else if (newest.id !== run.id) {
    body = (
      <p class="muted" data-testid="review-later">
        A later run of this conversation went on with this branch:{' '}
        <a href={routeHash({ screen: 'run', hostId: host.hostId, runId: newest.id })}>
          review it there
        </a>
        .
      </p>
    );
  } else {
    body = <Review key={run.id} host={host} run={run} worktree={worktree} />;
  }
  return (
    <section
      class="card review"
      data-testid="worktree-review"
      data-branch={worktree.branch}
      data-state={worktree.state}
    >
      <h2 class="card-title">
        Its own branch: <code>{branch}</code>
      </h2>
      {body}
    </section>
  );
}

/** What the answer did: from its `run.integrated` event when this device saw it. */
function Answered({
  host,
  runs,
  worktree,
}: {
  host: HostView;
  runs: readonly Run[];
  worktree: HeldWorktree;
}) {
  const event = runs
    .flatMap((r) => host.state.timelines[r.id] ?? [])
    .filter((e) => e.type === 'run.integrated')
    .at(-1);
  const done: Integration = (event === undefined ? undefined : integrationOf(event.payload)) ?? {
    state: worktree.state as Integration['state'],
  };
  const by = answeredBy(
    typeof event?.payload['by'] === 'string' ? event.payload['by'] : undefined,
    host.state.devices,
  );
  return (
    <p class="notice" data-testid="review-outcome" data-outcome={done.state} data-how={done.how}>
      {integrationText(done, visibleText(worktree.branch))}
      {by !== undefined && ` Answered by ${visibleText(by)}.`}
    </p>
  );
}

/** A refusal the review explains, kept until the next answer. */
type Refusal =
  | { kind: 'conflict'; into: string; files: string[] }
  | { kind: 'changed' }
  | { kind: 'other'; text: string; files: string[] };

function Review({ host, run, worktree }: { host: HostView; run: Run; worktree: HeldWorktree }) {
  const { review, error, reload } = useReview(
    host,
    run.id,
    `${worktree.treeDigest ?? ''}/${worktree.state}`,
  );
  const action = useSubmit(host);
  const [confirming, setConfirming] = useState<IntegrateAction | undefined>(undefined);
  const [refusal, setRefusal] = useState<Refusal | undefined>(undefined);

  if (review === undefined) {
    return error === undefined ? (
      <p class="muted">Asking the host for the branch…</p>
    ) : (
      <p class="error">The review could not be read: {error}</p>
    );
  }
  const { treeDigest } = review;
  if (treeDigest === null || review.busy) {
    return (
      <p class="muted" data-testid="review-waiting">
        {review.busy
          ? 'A run still works on this branch: its review comes when it ends.'
          : 'No run has ended on this branch yet: nothing to review.'}
      </p>
    );
  }
  const answer = (chosen: IntegrateAction) =>
    action.run(chosen, async () => {
      setConfirming(undefined);
      setRefusal(undefined);
      try {
        IntegrateResult.parse(
          await action.submit('run.integrate', {
            runId: run.id,
            action: chosen,
            treeDigest,
          }),
        );
        // What it did shows from the run.integrated event the host records with it.
      } catch (failure) {
        const explained = refusalOf(failure, review);
        if (explained === undefined) throw failure;
        setRefusal(explained);
        if (explained.kind === 'changed') reload();
      }
    });
  const busy = action.busy !== undefined;
  const empty = review.stat.files === 0;
  return (
    <div data-testid="review-body" data-tree={treeDigest}>
      <p class="small" data-testid="review-summary">
        From <code>{review.base.slice(0, 12)}</code>
        {review.into !== null && (
          <>
            {' '}
            into <code>{visibleText(review.into)}</code>
          </>
        )}
        {' · '}
        <span data-testid="review-stat">{statText(review.stat)}</span>
      </p>
      {empty ? (
        <p class="muted" data-testid="review-empty">
          This branch changed no file: there is nothing to merge.
        </p>
      ) : (
        <ReviewFiles review={review} />
      )}
      {refusal !== undefined && <RefusalText refusal={refusal} />}
      {review.into === null && !empty && (
        <p class="notice small">
          Your checkout is not on a branch, so there is nothing to merge into: check out a branch on
          the Mac, then look again. You can keep or discard this one.
        </p>
      )}
      <ReviewActions
        into={review.into}
        empty={empty}
        busy={busy}
        confirming={confirming}
        onConfirm={setConfirming}
        onAnswer={answer}
      />
      {action.error !== undefined && (
        <p class="error" data-testid="review-error">
          {action.error}
        </p>
      )}
    </div>
  );
}

/** Merge into the checkout's branch, Keep, Discard: Merge and Discard take a second tap. */
function ReviewActions({
  into,
  empty,
  busy,
  confirming,
  onConfirm,
  onAnswer,
}: {
  /** The branch a merge goes into; null: no merge offered. */
  into: string | null;
  empty: boolean;
  busy: boolean;
  confirming: IntegrateAction | undefined;
  onConfirm: (action: IntegrateAction | undefined) => void;
  onAnswer: (action: IntegrateAction) => void;
}) {
  return (
    <div class="actions review-actions">
      {confirming !== undefined ? (
        <ConfirmButtons
          label={
            confirming === 'merge'
              ? `Merge now into ${visibleText(into ?? '')}`
              : 'Discard the branch'
          }
          testId="review"
          action={confirming}
          tone={confirming === 'merge' ? 'primary' : 'danger'}
          size="normal"
          cancelLabel="Not now"
          busy={busy}
          onConfirm={() => onAnswer(confirming)}
          onCancel={() => onConfirm(undefined)}
        />
      ) : (
        <>
          {!empty && into !== null && (
            <button
              type="button"
              class="button primary"
              data-testid="review-merge"
              disabled={busy}
              onClick={() => onConfirm('merge')}
            >
              Merge into {visibleText(into)}
            </button>
          )}
          {!empty && (
            <button
              type="button"
              class="button"
              data-testid="review-keep"
              disabled={busy}
              onClick={() => onAnswer('keep')}
            >
              Keep the branch
            </button>
          )}
          <button
            type="button"
            class="button danger-outline"
            data-testid="review-discard"
            disabled={busy}
            onClick={() => onConfirm('discard')}
          >
            Discard
          </button>
        </>
      )}
    </div>
  );
}

function RefusalText({ refusal }: { refusal: Refusal }) {
  const text =
    refusal.kind === 'conflict'
      ? `Not merged: it conflicts with ${visibleText(refusal.into)} in the files below. Nothing changed; the branch stays for you to merge by hand on the Mac, or discard.`
      : refusal.kind === 'changed'
        ? 'The branch changed since this review: here it is again. Read it, then answer.'
        : refusal.text;
  return (
    <div class="notice" data-testid="review-refusal" data-kind={refusal.kind}>
      <p>{text}</p>
      {refusal.kind !== 'changed' && refusal.files.length > 0 && (
        <ul data-testid="review-conflicts">
          {refusal.files.map((file) => (
            <li key={file}>
              <code>{visibleText(file)}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The refusal a review explains; undefined for any other failure. */
function refusalOf(failure: unknown, review: RunReview): Refusal | undefined {
  if (!(failure instanceof TetherError)) return undefined;
  const files = Array.isArray(failure.details?.['files'])
    ? failure.details['files'].map(String)
    : [];
  switch (failure.code) {
    case 'merge_conflict': {
      const into = failure.details?.['into'];
      return {
        kind: 'conflict',
        into: typeof into === 'string' ? into : (review.into ?? ''),
        files,
      };
    }
    case 'digest_mismatch':
      return { kind: 'changed' };
    case 'invalid_state':
      return failure.details?.['reason'] === 'checkout'
        ? { kind: 'other', text: `Not merged: ${failure.message}`, files }
        : undefined;
    default:
      return undefined;
  }
}
