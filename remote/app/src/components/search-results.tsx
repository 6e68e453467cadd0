/**
 * One host's runs matching a search (`runs.list` with a `query`, matched by the host against
 * tasks, conversation titles and answers), newest first, paged as the host pages them. Its
 * own chunk: the runs list loads it the first time something is searched.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Run } from '#protocol';
import { routeHash } from '../logic/route.js';
import { ago } from '../logic/run-view.js';
import { useNow } from '../state/app-context.js';
import type { HostView } from '../state/app-view.js';
import { errorText } from '../state/use-action.js';
import { RunStateBadge } from './run-state-badge.js';
import { shownText } from './shown-text.js';

const PAGE = 50;

interface Matches {
  runs: readonly Run[];
  next: string | undefined;
  loading: boolean;
  error: string | undefined;
}

/** One host's matches for `query`, newest first, with a button for the next page. */
export function HostMatches({ host, query }: { host: HostView; query: string }) {
  const now = useNow();
  const [matches, setMatches] = useState<Matches>({
    runs: [],
    next: undefined,
    loading: true,
    error: undefined,
  });
  const connection = host.connection;
  const ask = (before: string | undefined, earlier: readonly Run[], current: () => boolean) => {
    setMatches((last) => ({ ...last, loading: true, error: undefined }));
    connection
      .request('runs.list', { query, limit: PAGE, ...(before === undefined ? {} : { before }) })
      .then(
        (page) =>
          current() &&
          setMatches({
            runs: [...earlier, ...page.runs],
            next: page.next,
            loading: false,
            error: undefined,
          }),
        (failure: unknown) =>
          current() &&
          setMatches((last) => ({ ...last, loading: false, error: errorText(failure) })),
      );
  };
  useEffect(() => {
    let current = true;
    ask(undefined, [], () => current);
    return () => {
      current = false;
    };
  }, [connection, query]);
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
          onClick={() => ask(matches.next, matches.runs, () => true)}
        >
          {matches.loading ? 'Searching…' : 'More matches'}
        </button>
      )}
    </section>
  );
}
