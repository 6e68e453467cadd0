/**
 * The review of a run's own branch (`run.review`, docs/worktrees.md), asked while connected
 * and again whenever the branch moves (`key`: its tree and state) or `reload` is called.
 */
import { useEffect, useState } from 'preact/hooks';
import { RunReview } from '#protocol';
import type { HostView } from '../state/app-view.js';
import { errorText } from '../state/use-action.js';

/** The host's last review (kept while a newer one is asked), why asking failed, and a reload. */
export function useReview(
  host: HostView,
  runId: string,
  key: string,
): { review: RunReview | undefined; error: string | undefined; reload: () => void } {
  const [answer, setAnswer] = useState<{ review?: RunReview; error?: string }>({});
  const [asked, setAsked] = useState(0);
  const connected = host.status.state === 'open';
  useEffect(() => {
    if (!connected) return;
    let current = true;
    host.connection.request('run.review', { runId }).then(
      (result) => {
        const parsed = RunReview.safeParse(result);
        if (!current) return;
        setAnswer(
          parsed.success
            ? { review: parsed.data }
            : { error: 'The host answered with a review this app cannot read.' },
        );
      },
      (failure: unknown) =>
        current && setAnswer((last) => ({ ...last, error: errorText(failure) })),
    );
    return () => {
      current = false;
    };
  }, [host.connection, connected, runId, key, asked]);
  return { review: answer.review, error: answer.error, reload: () => setAsked((n) => n + 1) };
}
