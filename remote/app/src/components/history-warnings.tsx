/**
 * One warning per host whose database went back in time (restored from a backup, or
 * damaged): what this device saw after that point is gone from the host. Shown until the
 * user acknowledges it on the Mac (`tether history --acknowledge`).
 */
import { historyWarning } from '../logic/history-warning.js';
import { useAppView } from '../state/app-context.js';

export function HistoryWarnings() {
  const view = useAppView();
  return (
    <>
      {view.hosts.map((host) => {
        const text = historyWarning(host.hostName, host.info);
        if (text === undefined) return null;
        return (
          <div
            key={host.hostId}
            class="notice host-warning"
            data-testid="host-history-rewound"
            data-host-id={host.hostId}
            role="alert"
          >
            {text}
          </div>
        );
      })}
    </>
  );
}
