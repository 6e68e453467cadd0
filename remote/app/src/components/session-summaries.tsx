/**
 * "Earlier conversation summarised" on a run whose model request needed the session's
 * earliest runs summarised (docs/sessions.md), each summary readable and said to be
 * lossy. The summaries come with `run.get` as an extra field its schema does not name
 * (docs/protocol.md §6.4), checked field by field; asked when the run opens and again
 * whenever a `session.compacted` of the run arrives.
 */
import type { Run } from '#protocol';
import { useRunSummaries } from '../hooks/use-run-summaries.js';
import type { HostView } from '../state/app-view.js';
import { shownText } from './shown-text.js';

export function SessionSummaries({ host, run }: { host: HostView; run: Run }) {
  const summaries = useRunSummaries(host, run);
  if (summaries.length === 0) return null;
  return (
    <>
      {summaries.map((summary) => (
        <details key={summary.id} class="card summary" data-testid="session-summary">
          <summary>
            Earlier conversation summarised{' '}
            <span class="muted small">
              (about {summary.tokensBefore.toLocaleString()} tokens of context became{' '}
              {summary.tokensAfter.toLocaleString()})
            </span>
          </summary>
          <p class="muted small">
            Written by {summary.model} from the session's earlier runs. A summary can miss or get
            things wrong; every event is still kept on the host.
          </p>
          <p class="summary-text" data-testid="session-summary-text">
            {shownText(summary.summary)}
          </p>
        </details>
      ))}
    </>
  );
}
