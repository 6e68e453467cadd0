/**
 * The session summaries a run's model request used (docs/sessions.md), from `run.get`:
 * asked when the run opens and again whenever a `session.compacted` of the run arrives.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Run } from '#protocol';
import type { HostView } from '../state/app-view.js';

/** One summary as `run.get` lists it (host/store/session-summaries.ts `StoredSummary`). */
interface Summary {
  id: string;
  summary: string;
  tokensBefore: number;
  tokensAfter: number;
  model: string;
}

/**
 * The summaries of a `run.get` answer, each checked field by field (a schema here would
 * pull zod's tuple and number checks into the first load); an answer without them, none.
 */
function summariesOf(result: unknown): Summary[] {
  const listed = (result as { summaries?: unknown }).summaries;
  if (!Array.isArray(listed)) return [];
  return listed.filter(
    (item: unknown): item is Summary =>
      typeof item === 'object' &&
      item !== null &&
      ['id', 'summary', 'model'].every(
        (key) => typeof (item as Record<string, unknown>)[key] === 'string',
      ) &&
      ['tokensBefore', 'tokensAfter'].every((key) =>
        Number.isFinite((item as Record<string, unknown>)[key]),
      ),
  );
}

/** The run's summaries, newest answer of the host; none until it answered. */
export function useRunSummaries(host: HostView, run: Run): Summary[] {
  const [summaries, setSummaries] = useState<Summary[]>([]);
  const connected = host.status.state === 'open';
  const compactions = (host.state.timelines[run.id] ?? []).filter(
    (event) => event.type === 'session.compacted',
  ).length;
  useEffect(() => {
    if (!connected) return;
    let current = true;
    host.connection.request('run.get', { runId: run.id }).then(
      (result) => {
        if (current) setSummaries(summariesOf(result));
      },
      // The run's own screen says when the host cannot be asked; nothing to add here.
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [host.connection, connected, run.id, compactions]);
  return summaries;
}
