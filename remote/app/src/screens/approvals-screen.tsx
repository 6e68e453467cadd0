/**
 * Every approval across hosts: pending ones first (the soonest to expire on top), then
 * the recently answered ones, each saying who answered.
 */
import { pendingApprovals } from '#client';
import { HostApproval } from '../components/host-approval.js';
import { routeHash } from '../logic/route.js';
import { useAppView } from '../state/app-context.js';

const RECENT_RESOLVED = 20;

export function ApprovalsScreen() {
  const view = useAppView();
  const pending = view.hosts.flatMap((host) =>
    pendingApprovals(host.state).map((approval) => ({ host, approval })),
  );
  const resolved = view.hosts
    .flatMap((host) =>
      Object.values(host.state.approvals)
        .filter((approval) => approval.state !== 'pending')
        .map((approval) => ({ host, approval })),
    )
    .slice(-RECENT_RESOLVED)
    .reverse();
  return (
    <main class="screen" data-testid="approvals-screen">
      <h1 class="screen-title">Approvals</h1>
      {pending.length === 0 && <p class="empty">Nothing is waiting for you.</p>}
      {[...pending, ...resolved].map(({ host, approval }) => (
        <div key={approval.id} class="approval-entry">
          <a
            class="muted small"
            href={routeHash({ screen: 'run', hostId: host.hostId, runId: approval.runId })}
          >
            {host.hostName} · {host.state.runs[approval.runId]?.input.text ?? 'open the run'}
          </a>
          <HostApproval host={host} approval={approval} />
        </div>
      ))}
    </main>
  );
}
