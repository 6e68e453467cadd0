/**
 * What the user can do about a host that is not live (a chunk of its own: most hosts are
 * live most of the time): Retry now while it waits out a backoff; Pair again when it
 * refused this device; Forget this host (asks first) whenever it stays unreachable.
 */
import { useState } from 'preact/hooks';
import { ConfirmButtons } from './confirm-buttons.js';
import type { HostLine, HostStateKind } from '../logic/connection-view.js';
import { useModel } from '../state/app-context.js';
import type { HostView } from '../state/app-view.js';
import { navigate } from '../state/route-hook.js';

const PAIR_AGAIN = 'Pair again (run tether pair on that computer and open its link)';

/** What to do about a host that refused this device, by its state. */
const ADVICE: Partial<Record<HostStateKind, string>> = {
  revoked: `This device was revoked there. ${PAIR_AGAIN}, or forget this host.`,
  'unknown-device':
    'It was reset, or another host now answers at its address. ' +
    `${PAIR_AGAIN}, or forget this host.`,
  unsupported: 'Update the app (reload it) or the host, or forget this host.',
  failed: `${PAIR_AGAIN}, or forget this host.`,
};

export function HostActions({ host, line }: { host: HostView; line: HostLine }) {
  const model = useModel();
  const [confirming, setConfirming] = useState(false);
  const [forgetting, setForgetting] = useState(false);
  const advice = line.needsAction ? ADVICE[line.state] : undefined;
  const forget = () => {
    setForgetting(true);
    void model.forget(host.hostId);
  };
  return (
    <>
      {advice !== undefined && (
        <p class="notice small host-advice" data-testid="host-advice">
          {advice}
        </p>
      )}
      <div class="host-actions">
        {line.retryable && (
          <button
            type="button"
            class="button small"
            data-testid="host-retry"
            onClick={() => model.retryNow(host.hostId)}
          >
            Retry now
          </button>
        )}
        {line.needsAction && (
          <button
            type="button"
            class="button small primary"
            data-testid="host-pair-again"
            onClick={() => navigate({ screen: 'pair' })}
          >
            Pair again
          </button>
        )}
        {confirming ? (
          <span class="host-confirm" role="group" aria-label={`Forget ${host.label}?`}>
            <span class="small">Forget {host.label} and what this device kept of it?</span>
            <ConfirmButtons
              label="Forget"
              testId="host-forget"
              busy={forgetting}
              onConfirm={forget}
              onCancel={() => setConfirming(false)}
            />
          </span>
        ) : (
          <button
            type="button"
            class="button danger-outline small"
            data-testid="host-forget"
            onClick={() => setConfirming(true)}
          >
            Forget this host
          </button>
        )}
      </div>
    </>
  );
}
