/**
 * The banner at the top: each host in trouble on its own line (reconnecting with the
 * seconds to the next try and Retry now, connecting, host restarted), else the live hosts;
 * offline; and the stale marker whenever the data shown may be out of date. A host that
 * refused this device is not named here while another host can connect: its row on the
 * runs screen says so, with Pair again and Forget.
 */
import { appBanner } from '../logic/connection-view.js';
import { useAppView, useModel, useNow } from '../state/app-context.js';

export function ConnectionBanner() {
  const model = useModel();
  const view = useAppView();
  const now = useNow(1_000);
  const links = view.hosts.map((host) => ({
    hostId: host.hostId,
    label: host.label,
    status: host.status,
    restartedAt: host.restartedAt,
  }));
  const banner = appBanner(links, view.online, now);
  const stale = view.hosts.some((host) => !host.live);
  return (
    <div
      class={`banner banner-${banner.status}`}
      data-testid="connection-banner"
      data-status={banner.status}
      role="status"
    >
      <span class="banner-dot" aria-hidden="true" />
      <span class="banner-lines">
        {banner.lines.length === 0 && <span class="banner-text">{banner.text}</span>}
        {banner.lines.map((line) => (
          <span
            key={line.hostId}
            class="banner-line"
            data-testid="banner-host"
            data-host-id={line.hostId}
            data-status={line.status}
          >
            <span class="banner-host-name">{line.label}:</span>{' '}
            <span class="banner-state">{line.text}</span>
            {line.retryable && (
              <button
                type="button"
                class="banner-retry"
                data-testid="banner-retry"
                onClick={() => model.retryNow(line.hostId)}
              >
                Retry now
              </button>
            )}
          </span>
        ))}
      </span>
      {stale && view.hosts.length > 0 && (
        <span class="stale" data-testid="stale-marker">
          may be out of date
        </span>
      )}
    </div>
  );
}
