/**
 * Every host's runs, active first, with state badges and pending approvals; commands
 * waiting to send on top. Live: it follows the host's events.
 */
import { pendingApprovals } from '../../../../remote/client/index.js';
import { OutboxList } from '../components/outbox-list.js';
import { RunStateBadge } from '../components/run-state-badge.js';
import { routeHash } from '../logic/route.js';
import { ago, sortRuns } from '../logic/run-view.js';
import { useAppView, useNow } from '../state/app-context.js';
import type { HostView } from '../state/app-model.js';

export function RunsScreen() {
  const view = useAppView();
  return (
    <main class="screen" data-testid="runs-screen">
      <h1 class="screen-title">Runs</h1>
      {view.hosts.map((host) => (
        <HostRuns key={host.hostId} host={host} />
      ))}
    </main>
  );
}

function HostRuns({ host }: { host: HostView }) {
  const now = useNow();
  const runs = sortRuns(Object.values(host.state.runs));
  const waiting = pendingApprovals(host.state);
  return (
    <section class="host-section">
      <h2 class="host-name" data-testid="host-name">
        {host.hostName}
      </h2>
      <OutboxList host={host} />
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
                  </span>
                </span>
                <RunStateBadge state={run.state} />
              </a>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
