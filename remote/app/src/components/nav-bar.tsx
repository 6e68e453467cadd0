/**
 * The tab bar: runs, submit, approvals (with the count of what waits for the user across
 * hosts: approvals, and runs' branches ready to review), devices.
 */
import { pendingApprovals, runsToReview } from '#client';
import type { Route } from '../logic/route.js';
import { useAppView } from '../state/app-context.js';

export function NavBar({ route }: { route: Route }) {
  const view = useAppView();
  const pending = view.hosts.reduce(
    (sum, host) => sum + pendingApprovals(host.state).length + runsToReview(host.state).size,
    0,
  );
  const current = (screen: Route['screen']) =>
    route.screen === screen ||
    (screen === 'runs' && (route.screen === 'run' || route.screen === 'changes'))
      ? 'page'
      : undefined;
  return (
    <nav class="nav" aria-label="Screens">
      <a href="#/runs" data-testid="nav-runs" aria-current={current('runs')}>
        <span class="nav-icon" aria-hidden="true">
          ☰
        </span>
        Runs
      </a>
      <a href="#/submit" data-testid="nav-submit" aria-current={current('submit')}>
        <span class="nav-icon" aria-hidden="true">
          +
        </span>
        New task
      </a>
      <a href="#/approvals" data-testid="nav-approvals" aria-current={current('approvals')}>
        <span
          class={`nav-icon count ${pending > 0 ? 'count-active' : ''}`}
          data-testid="approvals-count"
          aria-label={`${pending} pending`}
        >
          {pending}
        </span>
        Approvals
      </a>
      <a href="#/devices" data-testid="nav-devices" aria-current={current('devices')}>
        <span class="nav-icon" aria-hidden="true">
          ⌁
        </span>
        Devices
      </a>
    </nav>
  );
}
