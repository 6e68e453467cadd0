/**
 * Facts the host sums up for a run (`run.usage`, `run.changes`), asked while connected and
 * again whenever the run moves on (its state, its messages, its finished tool calls), so
 * the app never adds them up itself.
 */
import { useEffect, useState } from 'preact/hooks';
import type { OpResult, Run } from '#protocol';
import { toolCallsOf } from '#client';
import type { HostView } from '../state/app-view.js';
import { errorText } from '../state/use-action.js';

type FactOp = 'run.usage' | 'run.changes';

/** The host's last answer for the run (kept while a newer one is asked), or why it failed. */
export function useRunFacts<O extends FactOp>(
  host: HostView,
  run: Run,
  op: O,
): { result: OpResult<O> | undefined; error: string | undefined } {
  const [answer, setAnswer] = useState<{ result?: OpResult<O>; error?: string }>({});
  const connected = host.status.state === 'open';
  const messages = host.state.messages[run.id]?.length ?? 0;
  const finished = toolCallsOf(host.state, run.id).filter((call) => call.finishedAt !== null);
  const moved = `${run.state}/${messages}/${finished.length}`;
  useEffect(() => {
    if (!connected) return;
    let current = true;
    // Both ops take `{runId}`; TypeScript cannot see that through the generic.
    const asked = host.connection.request<FactOp>(op, { runId: run.id }) as Promise<OpResult<O>>;
    asked.then(
      (result) => current && setAnswer({ result }),
      (failure: unknown) =>
        current && setAnswer((last) => ({ ...last, error: errorText(failure) })),
    );
    return () => {
      current = false;
    };
  }, [host.connection, connected, op, run.id, moved]);
  return { result: answer.result, error: answer.error };
}
