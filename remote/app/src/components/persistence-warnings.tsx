/**
 * One warning per host whose store cannot commit: it refuses every command (approvals and
 * new tasks among them) until it can save again; what it shows stays readable.
 */
import { persistenceWarning } from '../logic/persistence-warning.js';
import { useAppView } from '../state/app-context.js';

export function PersistenceWarnings() {
  const view = useAppView();
  return (
    <>
      {view.hosts.map((host) => {
        const text = persistenceWarning(host.label, host.health);
        if (text === undefined) return null;
        return (
          <div
            key={host.hostId}
            class="notice host-warning"
            data-testid="host-persistence-failed"
            data-host-id={host.hostId}
            role="alert"
          >
            {text}
            {host.health?.message !== undefined && (
              <span class="small host-warning-detail">Host reports: {host.health.message}</span>
            )}
          </div>
        );
      })}
    </>
  );
}
