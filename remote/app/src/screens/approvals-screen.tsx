/**
 * Every approval across hosts: what waits for an answer first, grouped per host (the
 * soonest to expire on top), and the runs whose own branch is ready to review; then,
 * apart, the few most recently answered approvals, each saying what was answered, on which
 * device and when.
 */
import type { Approval } from '#protocol';
import { pendingApprovals, runsToReview, visibleText, worktreeOf } from '#client';
import { HostApproval } from '../components/host-approval.js';
import { routeHash } from '../logic/route.js';
import { useAppView } from '../state/app-context.js';
import type { HostView } from '../state/app-view.js';

/** How many answered approvals the tab keeps below the waiting ones, across hosts. */
const RECENT_RESOLVED = 5;

export function ApprovalsScreen() {
  const view = useAppView();
  const waiting = view.hosts
    .map((host) => ({ host, approvals: pendingApprovals(host.state) }))
    .filter((group) => group.approvals.length > 0);
  const resolved = view.hosts
    .flatMap((host) =>
      Object.values(host.state.approvals)
        .filter((approval) => approval.state !== 'pending')
        .map((approval, index) => ({ host, approval, order: approval.decidedAt ?? index })),
    )
    .sort((a, b) => b.order - a.order)
    .slice(0, RECENT_RESOLVED);
  const reviews = view.hosts.flatMap((host) =>
    [...runsToReview(host.state)].map((runId) => ({ host, runId })),
  );
  const named = view.hosts.length > 1;
  return (
    <main class="screen" data-testid="approvals-screen">
      <h1 class="screen-title">Approvals</h1>
      {waiting.length === 0 && reviews.length === 0 && (
        <p class="empty">Nothing is waiting for you.</p>
      )}
      {reviews.length > 0 && (
        <section class="approvals-group" data-testid="reviews-waiting">
          <h2 class="muted small">Ready to review</h2>
          <ul class="list">
            {reviews.map(({ host, runId }) => (
              <ReviewEntry key={`${host.hostId}/${runId}`} host={host} runId={runId} />
            ))}
          </ul>
        </section>
      )}
      {waiting.map(({ host, approvals }) => (
        <section
          key={host.hostId}
          class="approvals-group"
          data-testid="approvals-waiting"
          data-host-id={host.hostId}
        >
          {named && <h2 class="host-name">{host.hostName}</h2>}
          {approvals.map((approval) => (
            <Entry key={approval.id} host={host} approval={approval} />
          ))}
        </section>
      ))}
      {resolved.length > 0 && (
        <section class="approvals-answered" data-testid="approvals-answered">
          <h2 class="muted small">Answered recently</h2>
          {resolved.map(({ host, approval }) => (
            <Entry key={approval.id} host={host} approval={approval} />
          ))}
        </section>
      )}
    </main>
  );
}

function Entry({ host, approval }: { host: HostView; approval: Approval }) {
  return (
    <div class="approval-entry">
      <a
        class="muted small"
        href={routeHash({ screen: 'run', hostId: host.hostId, runId: approval.runId })}
      >
        {host.hostName} · {host.state.runs[approval.runId]?.input.text ?? 'open the run'}
      </a>
      <HostApproval host={host} approval={approval} />
    </div>
  );
}

/** A run whose branch waits for merge, keep or discard: its row leads to its review. */
function ReviewEntry({ host, runId }: { host: HostView; runId: string }) {
  const run = host.state.runs[runId];
  const branch = worktreeOf(host.state.sessions[run?.sessionId ?? ''])?.branch ?? '';
  return (
    <li>
      <a
        class="row run-row"
        href={routeHash({ screen: 'run', hostId: host.hostId, runId })}
        data-testid="review-row"
        data-run-id={runId}
      >
        <span class="row-main">
          <span class="row-title">{run?.input.text ?? 'open the run'}</span>
          <span class="row-meta">
            {host.hostName} · {visibleText(branch)} ready to review
          </span>
        </span>
      </a>
    </li>
  );
}
