/**
 * The right pane of the two-pane layout while no run is open: what to do next, the
 * approvals waiting, and the keyboard shortcuts.
 */
import { pendingApprovals } from '#client';
import { useAppView } from '../state/app-context.js';

export function EmptyPane() {
  const view = useAppView();
  const pending = view.hosts.reduce((sum, host) => sum + pendingApprovals(host.state).length, 0);
  return (
    <main class="screen empty-pane" data-testid="empty-pane">
      <p class="empty-pane-lead">Pick a run on the left to follow it here.</p>
      <p>
        <a class="button primary" href="#/submit">
          New task
        </a>
      </p>
      {pending > 0 && (
        <p>
          <a href="#/approvals" data-testid="empty-pane-approvals">
            {pending} approval{pending === 1 ? '' : 's'} waiting
          </a>
        </p>
      )}
      <dl class="shortcuts muted small" data-testid="shortcuts">
        <dt>
          <kbd>⌘</kbd>/<kbd>Ctrl</kbd> + <kbd>Enter</kbd>
        </dt>
        <dd>sends the task or follow-up being typed</dd>
        <dt>
          <kbd>/</kbd>
        </dt>
        <dd>searches runs</dd>
        <dt>
          <kbd>Esc</kbd>
        </dt>
        <dd>leaves the search box</dd>
      </dl>
    </main>
  );
}
