/**
 * One host's runs matching a search (`runs.list` with a `query`, matched by the host against
 * tasks, conversation titles and answers), newest first, paged as the host pages them. Its
 * own chunk: the runs list loads it the first time something is searched.
 */
import { useRunSearch } from '../hooks/use-run-search.js';
import { routeHash } from '../logic/route.js';
import { ago } from '../logic/run-view.js';
import { useNow } from '../state/app-context.js';
import type { HostView } from '../state/app-view.js';
import { RunStateBadge } from './run-state-badge.js';
import { shownText } from './shown-text.js';

/** One host's matches for `query`, newest first, with a button for the next page. */
export function HostMatches({ host, query }: { host: HostView; query: string }) {
  const now = useNow();
  const { matches, more } = useRunSearch(host, query);
  return (
    <section class="host-section" data-testid="search-results" data-host-id={host.hostId}>
      <h2 class="host-name">{host.label}</h2>
      {matches.error !== undefined && <p class="error">Search: {matches.error}</p>}
      {!matches.loading && matches.error === undefined && matches.runs.length === 0 && (
        <p class="empty" data-testid="search-empty">
          No run matches.
        </p>
      )}
      <ul class="list">
        {matches.runs.map((run) => (
          <li key={run.id}>
            <a
              class="row run-row"
              href={routeHash({ screen: 'run', hostId: host.hostId, runId: run.id })}
              data-testid="search-row"
              data-run-id={run.id}
              data-state={run.state}
            >
              <span class="row-main">
                <span class="row-title">{shownText(run.input.text)}</span>
                <span class="row-meta">{ago(run.createdAt, now)}</span>
              </span>
              <RunStateBadge state={run.state} />
            </a>
          </li>
        ))}
      </ul>
      {matches.next !== undefined && (
        <button
          type="button"
          class="button wide"
          data-testid="search-more"
          disabled={matches.loading}
          onClick={more}
        >
          {matches.loading ? 'Searching…' : 'More matches'}
        </button>
      )}
    </section>
  );
}
