/**
 * Every host's runs, active first, with state badges, pending approvals and branches ready
 * to review; commands waiting to send on top. Live: it follows the host's events. Older
 * runs than the snapshot's recent ones are paged in as the end of the list comes near, or
 * by a button.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { pendingApprovals, runsToReview } from '#client';
import { HostHeader } from '../components/host-header.js';
import { ModelNotice } from '../components/model-notice.js';
import { RunStateBadge } from '../components/run-state-badge.js';
import { HostMatches, RunSearchBox } from '../components/run-search.js';
import { routeHash } from '../logic/route.js';
import { ago, listedRuns, mayHaveOlderRuns } from '../logic/run-view.js';
import { useAppView, useModel, useNow } from '../state/app-context.js';
import type { HostView } from '../state/app-view.js';
import { lazyScreen } from './lazy-screen.js';

/** Commands waiting to send: a chunk of its own, fetched only when a host has some. */
const OutboxList = lazyScreen(() =>
  import('../components/outbox-list.js').then((m) => m.OutboxList),
);

/**
 * `pane`: the list is the left pane beside the open screen (a wide window), not the page's
 * main content; `openRunId` is the run open beside it, marked as the current row.
 */
export function RunsScreen({ pane = false, openRunId }: { pane?: boolean; openRunId?: string }) {
  const view = useAppView();
  const [query, setQuery] = useState('');
  const Element = pane ? 'section' : 'main';
  return (
    <Element
      class={pane ? 'screen runs-pane' : 'screen'}
      data-testid="runs-screen"
      aria-label={pane ? 'Runs' : undefined}
    >
      <h1 class="screen-title">Runs</h1>
      <RunSearchBox onQuery={setQuery} />
      {view.hosts.map((host) =>
        query === '' ? (
          <HostRuns key={host.hostId} host={host} online={view.online} openRunId={openRunId} />
        ) : (
          <HostMatches key={`${host.hostId}/${query}`} host={host} query={query} />
        ),
      )}
    </Element>
  );
}

function HostRuns({
  host,
  online,
  openRunId,
}: {
  host: HostView;
  online: boolean;
  openRunId: string | undefined;
}) {
  const now = useNow();
  const runs = listedRuns(host.state.runs, host.older.runs);
  const waiting = pendingApprovals(host.state);
  const reviews = runsToReview(host.state);
  return (
    <section class="host-section">
      <HostHeader host={host} />
      <ModelNotice host={host} />
      {host.pending.length > 0 && <OutboxList host={host} online={online} />}
      {runs.length === 0 && host.pending.length === 0 && (
        <p class="empty">
          No runs yet. <a href="#/submit">Start a task</a>.
        </p>
      )}
      <ul class="list">
        {runs.map((run) => {
          const approvals = waiting.filter((approval) => approval.runId === run.id).length;
          return (
            <li key={run.id}>
              <a
                class="row run-row"
                href={routeHash({ screen: 'run', hostId: host.hostId, runId: run.id })}
                data-testid="run-row"
                data-run-id={run.id}
                data-state={run.state}
                aria-current={run.id === openRunId ? 'page' : undefined}
              >
                <span class="row-main">
                  <span class="row-title">{run.input.text}</span>
                  <span class="row-meta">
                    {ago(run.createdAt, now)}
                    {approvals > 0 && (
                      <span class="pending-count">
                        {' '}
                        · {approvals} approval{approvals === 1 ? '' : 's'} waiting
                      </span>
                    )}
                    {reviews.has(run.id) && (
                      <span class="pending-count" data-testid="run-review-ready">
                        {' '}
                        · ready to review
                      </span>
                    )}
                  </span>
                </span>
                <RunStateBadge state={run.state} />
              </a>
            </li>
          );
        })}
      </ul>
      <OlderRuns host={host} />
    </section>
  );
}

/**
 * The end of a host's list: while older runs may exist, a sentinel that pages them in
 * once it comes within a screen of the viewport (again after each page while it stays
 * there), and the `runs-more` button for when that does not happen.
 */
function OlderRuns({ host }: { host: HostView }) {
  const model = useModel();
  const sentinel = useRef<HTMLDivElement>(null);
  const { older, hostId } = host;
  const more = mayHaveOlderRuns(host.state.runs, older);
  // A failed page waits for the button: no retry loop while the sentinel stays in view.
  const automatic = more && host.live && !older.loading && older.error === undefined;
  useEffect(() => {
    const element = sentinel.current;
    if (!automatic || element === null || typeof IntersectionObserver === 'undefined') return;
    // A new observer reports at once whether the sentinel is in view, after each page too.
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) void model.loadOlderRuns(hostId);
      },
      { rootMargin: '0px 0px 100% 0px' },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [automatic, older.runs.length, model, hostId]);
  if (!more) return null;
  return (
    <div class="older-runs" ref={sentinel}>
      {older.error !== undefined && <p class="error">Older runs: {older.error}</p>}
      <button
        type="button"
        class="button wide"
        data-testid="runs-more"
        disabled={older.loading}
        onClick={() => void model.loadOlderRuns(hostId)}
      >
        {older.loading ? 'Loading older runs…' : 'Older runs'}
      </button>
    </div>
  );
}
