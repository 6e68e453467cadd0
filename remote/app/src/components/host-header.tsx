/**
 * A host's heading on the runs screen: its name (told apart from namesakes) and its own
 * connection state; when it is not live and the user can do something about it, the
 * actions (components/host-actions.tsx, a chunk of its own). The chunk is fetched once a
 * host is live: it is needed when a host is down, and that host may be the one serving
 * the page (a browser does not fetch a module again once its fetch failed).
 */
import { useEffect } from 'preact/hooks';
import { hostLine } from '../logic/connection-view.js';
import { lazyScreen } from '../screens/lazy-screen.js';
import { useAppView, useNow } from '../state/app-context.js';
import type { HostView } from '../state/app-view.js';

const HostActions = lazyScreen(
  () => import('./host-actions.js').then((module) => module.HostActions),
  { part: true },
);

export function HostHeader({ host }: { host: HostView }) {
  const { online } = useAppView();
  const now = useNow(1_000);
  const line = hostLine(
    { hostId: host.hostId, label: host.label, status: host.status, restartedAt: host.restartedAt },
    online,
    now,
  );
  const live = line.status === 'live' || line.status === 'host-restarted';
  // Offline or still connecting, nothing to do yet; a host that keeps failing may be gone.
  const actions = line.needsAction || line.state === 'reconnecting';
  useEffect(() => {
    if (live) HostActions.preload();
  }, [live]);
  return (
    <div class="host-head">
      <div class="host-title">
        <h2 class="host-name" data-testid="host-name" title={host.origin}>
          {host.label}
        </h2>
        <span
          class={`host-state host-state-${line.status}`}
          data-testid="host-state"
          data-host-id={host.hostId}
          data-state={line.state}
        >
          {live ? 'connected' : line.text}
        </span>
      </div>
      {actions && <HostActions host={host} line={line} />}
    </div>
  );
}
