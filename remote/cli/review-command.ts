/**
 * `tether remote review <runId>`: the branch a run in its own worktree worked on
 * (docs/worktrees.md), from the host's `run.review`: its base, the branch of the checkout
 * a merge goes into, and each file with its diff; then the one answer, merge, keep or
 * discard, asked on the terminal (or given by flag, with `--yes` for scripts) and sent as
 * `run.integrate` bound to the tree that was shown.
 */
import {
  IntegrateResult,
  type IntegrateAction,
  RunReview,
  TetherError,
} from '../../protocol/index.js';
import { visibleText } from '../client/index.js';
import { parseCommandArgs, UsageError } from '../../common/cli/index.js';
import { confirm } from './confirm-prompt.js';
import { clip } from './format.js';
import { withHost } from './host-session.js';
import { HOST_FLAG, type RemoteContext, STATE_FLAG } from './remote-context.js';
import { sendCommand } from './send-command.js';

/** The usage text of `review`, for `--help` and command-line errors. */
export const REVIEW_USAGE = `Usage: tether remote review <runId> [--merge | --keep | --discard] [--yes]
                            [--host HOSTID] [--state FILE]

Shows the branch a run submitted with --worktree worked on: its base, the checkout's
branch a merge goes into, and each file it changed with the diff. Then asks
"Merge <branch> into <into>? [y/N]" (or the question for --keep or --discard) and answers
only on y; the answer applies only while the branch has exactly the files shown. Without
a terminal to ask on it answers only with --yes.

Options:
  --merge     merge the branch into the checkout's branch (the default question)
  --keep      keep the branch, remove its worktree folder
  --discard   delete the branch and its worktree
  --yes       answer without asking (for scripts: read the review first)
`;

const FLAGS = {
  ...STATE_FLAG,
  ...HOST_FLAG,
  merge: { type: 'boolean' },
  keep: { type: 'boolean' },
  discard: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
} as const;

/** The action the flags name (merge when none does); more than one is a usage error. */
function chosenAction(values: {
  merge?: boolean;
  keep?: boolean;
  discard?: boolean;
}): IntegrateAction {
  const named = (['merge', 'keep', 'discard'] as const).filter((action) => values[action]);
  if (named.length > 1) {
    throw new UsageError(`choose one of ${named.map((action) => `--${action}`).join(', ')}`);
  }
  return named[0] ?? 'merge';
}

/** Runs `tether remote review`; resolves with the exit code. */
export async function reviewCommand(argv: readonly string[], ctx: RemoteContext): Promise<number> {
  const { values, positionals, help } = parseCommandArgs(argv, FLAGS, { required: ['<runId>'] });
  if (help) {
    ctx.out(REVIEW_USAGE);
    return 0;
  }
  const action = chosenAction(values);
  const runId = positionals[0]!;
  return withHost(ctx, values, async (connection) => {
    const review = RunReview.parse(
      await connection.request('run.review', { runId }, { signal: ctx.signal }),
    );
    ctx.out(reviewText(review));
    const why = unanswerable(review, runId);
    if (why !== undefined) {
      ctx.err(`tether remote review: ${why}\n`);
      return 1;
    }
    const question = questionOf(action, review);
    if (values.yes !== true) {
      if (ctx.terminal === undefined) {
        ctx.err(
          `tether remote review: not answered: stdin is not a terminal, so nobody can confirm; ` +
            `read the review above and pass --${action} --yes to ${action} it\n`,
        );
        return 1;
      }
      if (!(await confirm(`${question} [y/N] `, ctx.terminal, (t) => ctx.out(t), ctx.signal))) {
        ctx.err(
          `tether remote review: not answered (only y or yes answers); the branch waits for ` +
            `your answer: --merge, --keep or --discard\n`,
        );
        return 1;
      }
    }
    let result: IntegrateResult;
    try {
      result = IntegrateResult.parse(
        await sendCommand(connection, ctx, 'run.integrate', {
          runId,
          action,
          treeDigest: review.treeDigest!,
        }),
      );
    } catch (error) {
      const refusal = refusalText(error, review, runId);
      if (refusal === undefined) throw error;
      ctx.err(`tether remote review: ${refusal}\n`);
      return 1;
    }
    ctx.out(outcomeText(result, review) + '\n');
    return 0;
  });
}

/** The review as text: the branch, what it changed, each file with its diff. */
function reviewText(review: RunReview): string {
  const lines = [
    `branch ${clip(review.branch, 200)} from ${review.base.slice(0, 12)} (${review.state})`,
    `into ${review.into === null ? '(the checkout is not on a branch)' : clip(review.into, 200)}`,
    `${review.stat.files} file(s) changed, +${review.stat.additions} -${review.stat.deletions}`,
  ];
  for (const file of review.files) {
    const from = file.from === undefined ? '' : `${clip(file.from, 200)} → `;
    const counts = file.binary ? 'binary' : `+${file.additions} -${file.deletions}`;
    lines.push('', `${file.status} ${from}${clip(file.path, 200)} ${counts}`);
    if (file.diff !== undefined) {
      for (const line of file.diff.replace(/\n$/, '').split('\n')) {
        lines.push(`    ${visibleText(line)}`);
      }
    } else if (file.diffCut === true) {
      lines.push(
        `    [diff too long to show here: git diff ${review.base.slice(0, 12)} ${clip(review.branch, 200)} -- ${clip(file.path, 200)} in the repository shows it]`,
      );
    }
  }
  if (review.files.length < review.stat.files) {
    lines.push('', `(${review.stat.files - review.files.length} more files than one answer lists)`);
  }
  return lines.join('\n') + '\n';
}

/** Why the review cannot be answered now, or undefined when it can. */
function unanswerable(review: RunReview, runId: string): string | undefined {
  if (review.state !== 'active')
    return `this worktree was already ${review.state}: nothing to answer`;
  if (review.busy) {
    return `a run is still working in this worktree: wait for it to end (tether remote watch ${runId}) and review again`;
  }
  if (review.treeDigest === null) return 'no run has ended in this worktree yet: nothing to answer';
  return undefined;
}

function questionOf(action: IntegrateAction, review: RunReview): string {
  const branch = clip(review.branch, 200);
  switch (action) {
    case 'merge':
      return `Merge ${branch} into ${review.into === null ? 'the checkout' : clip(review.into, 200)}?`;
    case 'keep':
      return `Keep ${branch} and remove its worktree folder?`;
    case 'discard':
      return `Discard ${branch} and its worktree?`;
  }
}

/** A refusal the review explains, as a sentence; undefined for any other error. */
function refusalText(error: unknown, review: RunReview, runId: string): string | undefined {
  if (!(error instanceof TetherError)) return undefined;
  const branch = clip(review.branch, 200);
  if (error.code === 'digest_mismatch') {
    return `not answered: the branch changed since this review: review again (tether remote review ${runId})`;
  }
  if (error.code === 'merge_conflict') {
    const files = Array.isArray(error.details?.['files']) ? error.details['files'] : [];
    const list = files.map((file) => clip(String(file), 200)).join(', ');
    return (
      `not merged: ${branch} conflicts with ${review.into === null ? 'the checkout' : clip(review.into, 200)}` +
      `${list === '' ? '' : ` in ${list}`}; nothing changed. The branch stays: merge it by hand, ` +
      `or tether remote review ${runId} --discard`
    );
  }
  return undefined;
}

/** What the answer did, as a sentence. */
function outcomeText(result: IntegrateResult, review: RunReview): string {
  const branch = clip(review.branch, 200);
  switch (result.state) {
    case 'merged': {
      const into = clip(result.into ?? review.into ?? 'the checkout', 200);
      const commit = result.commit === undefined ? '' : ` ${result.commit.slice(0, 12)}`;
      if (result.how === 'fast_forward')
        return `Merged ${branch} into ${into}: fast-forward to${commit}.`;
      if (result.how === 'already_merged')
        return `${branch} was already in ${into}: nothing to merge.`;
      return `Merged ${branch} into ${into}: merge commit${commit}.`;
    }
    case 'kept':
      return `Kept ${branch}; its worktree folder is removed.`;
    case 'discarded':
      return `Discarded ${branch} and its worktree.`;
  }
}
