/**
 * One host's notifications for this device (docs/push.md): the switch, "Send a test" and
 * its result, or why push is unavailable here and what to do about it.
 */
import { usePush } from '../hooks/use-push.js';
import { pushBlockerText } from '../logic/push-availability.js';
import type { HostView } from '../state/app-view.js';

export interface PushSettingsProps {
  host: HostView;
  /** The host's word on this device's subscription (`devices.list`), undefined until listed. */
  subscribedOnHost: boolean | undefined;
  /** Lists the devices again after a change the host recorded. */
  changed: () => void;
}

export function PushSettings({ host, subscribedOnHost, changed }: PushSettingsProps) {
  const push = usePush(host, subscribedOnHost, changed);
  const connected = host.status.state === 'open';
  const state = push.blocker !== undefined ? 'unavailable' : push.on ? 'on' : 'off';
  const text =
    push.blocker === undefined
      ? undefined
      : pushBlockerText(push.blocker, { origin: location.origin, hostName: host.hostName });
  return (
    <div
      class="push-settings"
      data-testid="push-section"
      data-host-id={host.hostId}
      data-state={state}
    >
      {text !== undefined ? (
        <div class="notice" data-testid="push-unavailable" data-reason={push.blocker}>
          <p>{text.why}</p>
          <p class="muted small">{text.next}</p>
        </div>
      ) : (
        <>
          <label class="switch-row">
            <input
              type="checkbox"
              role="switch"
              data-testid="push-switch"
              checked={push.on}
              disabled={push.busy !== undefined || !connected}
              onClick={(event) => {
                event.preventDefault();
                if (push.on) push.turnOff();
                else push.turnOn();
              }}
            />
            <span>Notify me when a run on {host.hostName} needs me</span>
          </label>
          {push.on && (
            <button
              type="button"
              class="button small"
              data-testid="push-test"
              disabled={push.busy !== undefined || !connected}
              onClick={push.test}
            >
              Send a test
            </button>
          )}
          {push.tested !== undefined && (
            <p class="small" data-testid="push-test-result" data-status={push.tested.status}>
              {push.tested.status === 'delivered'
                ? `Delivered: the push service accepted it${push.tested.httpStatus === undefined ? '' : ` (${push.tested.httpStatus})`}. A notification should show.`
                : `Not delivered: ${push.tested.error ?? 'the push service refused it'}${push.tested.httpStatus === undefined ? '' : ` (${push.tested.httpStatus})`}.`}
            </p>
          )}
        </>
      )}
      {push.error !== undefined && (
        <p class="error" data-testid="push-error">
          {push.error}
        </p>
      )}
    </div>
  );
}
