/**
 * The search box over every paired host's runs, debounced; the matches are shown by
 * search-results.tsx, a chunk of its own loaded at the first search. The layout's `/`
 * shortcut focuses `[data-search-input]`.
 */
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { HostView } from '../state/app-view.js';

/** Quiet time after the last key before the hosts are asked. */
const DEBOUNCE_MS = 250;

/** The box; `onQuery` hears the trimmed text once typing paused ('' when cleared). */
export function RunSearchBox({ onQuery }: { onQuery: (query: string) => void }) {
  const [text, setText] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => onQuery(text.trim()), DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, onQuery]);
  return (
    <input
      type="search"
      class="run-search"
      placeholder="Search runs"
      aria-label="Search runs"
      maxLength={200}
      data-search-input=""
      data-testid="run-search"
      value={text}
      onInput={(event) => setText(event.currentTarget.value)}
    />
  );
}

type Matches = ComponentType<{ host: HostView; query: string }>;
let loaded: Matches | undefined;

/** A host's matches for `query`, once their chunk came (again after a failed load). */
export function HostMatches(props: { host: HostView; query: string }) {
  const [Shown, setShown] = useState<{ matches: Matches } | undefined>(
    loaded === undefined ? undefined : { matches: loaded },
  );
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (Shown !== undefined) return;
    let current = true;
    import('./search-results.js').then(
      (module) => {
        loaded = module.HostMatches;
        if (current) setShown({ matches: module.HostMatches });
      },
      () => current && setFailed(true),
    );
    return () => {
      current = false;
    };
  }, [Shown]);
  if (Shown !== undefined) return <Shown.matches {...props} />;
  return failed ? (
    <p class="error">Search could not be loaded: the host may be out of reach.</p>
  ) : null;
}
