/**
 * One host's runs matching a search (`runs.list` with a `query`), newest first, paged as
 * the host pages them: asked again when the query or the connection changes.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Run } from '#protocol';
import type { HostView } from '../state/app-view.js';
import { errorText } from '../state/use-action.js';

const PAGE = 50;

interface Matches {
  runs: readonly Run[];
  next: string | undefined;
  loading: boolean;
  error: string | undefined;
}

/** The matches so far, and `more` to ask for the next page. */
export function useRunSearch(host: HostView, query: string) {
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
  const more = () => ask(matches.next, matches.runs, () => true);
  return { matches, more };
}
