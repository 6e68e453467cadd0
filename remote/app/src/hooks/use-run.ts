/**
 * One run's own subscription while its screen is open, and the host view to show it from.
 */
import { useEffect, useState } from 'preact/hooks';
import type { HostView } from '../state/app-view.js';

/**
 * Subscribes to `runId` (its snapshot brings its messages, tool calls and live text) and
 * returns the host view to draw it from: until that snapshot came, the cached run (tool
 * calls, messages) beats a live state that has seen nothing of the run but its record;
 * once it came, the connection's state itself, since the model's view may be a frame
 * older than the snapshot and would briefly show the run without its tool calls.
 */
export function useRun(host: HostView | undefined, runId: string): HostView | undefined {
  const connection = host?.connection;
  const [runReady, setRunReady] = useState(false);
  useEffect(() => {
    if (connection === undefined) return;
    setRunReady(false);
    const subscription = connection.subscribeEvents({ runId });
    let current = true;
    subscription.ready.then(
      () => current && setRunReady(true),
      () => undefined,
    );
    return () => {
      current = false;
      subscription.close();
    };
  }, [connection, runId]);
  if (host === undefined) return undefined;
  if (runReady) return { ...host, state: host.connection.state.state };
  const cached = host.cached;
  return cached?.runs[runId] !== undefined && host.state.timelines[runId] === undefined
    ? { ...host, state: cached }
    : host;
}
