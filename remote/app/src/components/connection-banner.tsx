/**
 * The banner at the top: live, connecting, reconnecting (attempt n), offline, host
 * restarted; and the stale marker whenever the data shown may be out of date.
 */
import { appBanner } from '../logic/connection-view.js';
import { useAppView, useNow } from '../state/app-context.js';

export function ConnectionBanner() {
  const view = useAppView();
  const now = useNow(1_000);
  const banner = appBanner(view.hosts, view.online, now);
  const stale = view.hosts.some((host) => !host.live);
  return (
    <div
      class={`banner banner-${banner.status}`}
      data-testid="connection-banner"
      data-status={banner.status}
      role="status"
    >
      <span class="banner-dot" aria-hidden="true" />
      <span class="banner-text">{banner.text}</span>
      {stale && view.hosts.length > 0 && (
        <span class="stale" data-testid="stale-marker">
          may be out of date
        </span>
      )}
    </div>
  );
}
