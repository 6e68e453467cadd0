/**
 * The files a run's own branch changed, as `run.review` lists them: each file's status,
 * path and line counts, its diff folded under it (the diff cards of tool calls: a long
 * line scrolls inside its card), or why the diff is not shown.
 */
import type { RunReview } from '#protocol';
import { visibleText } from '#client';
import { fileCounts } from '../logic/review-text.js';
import { DiffView } from './diff-view.js';
import { shownText } from './shown-text.js';

/** Files open at first when the review lists at most this many. */
const OPEN_UP_TO = 3;

export function ReviewFiles({ review }: { review: RunReview }) {
  const open = review.files.length <= OPEN_UP_TO;
  const more = review.stat.files - review.files.length;
  return (
    <div class="review-files">
      {review.files.map((file) => (
        <details
          key={file.path}
          class="review-file"
          data-testid="review-file"
          data-path={file.path}
          data-status={file.status}
          open={open}
        >
          <summary>
            <span class="review-status">{file.status}</span>{' '}
            <code class="review-path">
              {file.from !== undefined && <>{shownText(file.from)} → </>}
              {shownText(file.path)}
            </code>{' '}
            <span class="muted small">{fileCounts(file)}</span>
          </summary>
          {file.diff !== undefined && file.diff !== '' ? (
            <DiffView diff={file.diff} testId="review-diff" />
          ) : (
            <p class="muted small">
              {file.binary
                ? 'A binary file: no lines to show.'
                : file.diffCut === true
                  ? `Too long to show here: git diff ${review.base.slice(0, 12)} ${visibleText(review.branch)} -- ${visibleText(file.path)} on the Mac shows it.`
                  : 'No lines changed (its mode or name only).'}
            </p>
          )}
        </details>
      ))}
      {more > 0 && (
        <p class="muted small">
          {more} more file{more === 1 ? '' : 's'} than one answer lists: the Mac shows them all.
        </p>
      )}
    </div>
  );
}
