/**
 * The devices paired with each host, with when each was last seen and its notifications
 * (on or off, last delivery, last error); this device's notifications switch per host;
 * revoke any device. Revoking this device takes a second tap to confirm, and makes the
 * app forget that host.
 */
import { useState } from 'preact/hooks';
import { ConfirmButtons } from '../components/confirm-buttons.js';
import { type Device, type DevicePush, TetherError } from '#protocol';
import { DeviceRename } from '../components/device-rename.js';
import { PushSettings } from '../components/push-settings.js';
import { useDevices } from '../hooks/use-devices.js';
import { useSubmit } from '../hooks/use-submit.js';
import { ago } from '../logic/run-view.js';
import { useAppView, useModel, useNow } from '../state/app-context.js';
import type { HostView } from '../state/app-view.js';

export function DevicesScreen() {
  const view = useAppView();
  return (
    <main class="screen" data-testid="devices-screen">
      <h1 class="screen-title">Devices</h1>
      {view.hosts.map((host) => (
        <HostDevices key={host.hostId} host={host} />
      ))}
      <p class="muted small">
        <a href="#/rules" data-testid="devices-rules">
          Rules: commands that run without asking
        </a>
      </p>
      <p class="muted small">
        <a href="#/pair">Pair with another host</a>
        {' · '}
        <a href="#/tools" data-testid="tools-link">
          Tool servers (MCP)
        </a>
      </p>
    </main>
  );
}

function HostDevices({ host }: { host: HostView }) {
  const model = useModel();
  const now = useNow();
  const action = useSubmit(host);
  const [listed, setListed, reload] = useDevices(host);
  const [confirming, setConfirming] = useState(false);
  const [renaming, setRenaming] = useState<string | undefined>(undefined);
  const connected = host.status.state === 'open';

  // The list answered here has fresh last-seen times and push states; events keep the
  // state's list current.
  const fromState = Object.values(host.state.devices);
  const devices = (listed ?? fromState)
    .map((device) => ({
      ...device,
      ...(host.state.devices[device.deviceId] ?? {}),
      lastSeenAt: device.lastSeenAt,
      push: device.push,
    }))
    .filter((device) => !device.revoked);
  const revoke = (device: Device) => {
    const self = device.deviceId === host.deviceId;
    action.run(device.deviceId, async () => {
      if (!self) {
        await action.submit('device.revoke', { deviceId: device.deviceId });
        setListed((current) => current?.filter((d) => d.deviceId !== device.deviceId));
        return;
      }
      // The host closes this device's socket (4403) at once, maybe before it answers.
      const revoked = await action.submit('device.revoke', { deviceId: device.deviceId }).then(
        () => true,
        (error: unknown) => error instanceof TetherError && error.code === 'device_revoked',
      );
      if (!revoked) throw new Error('The host did not revoke this device. Try again.');
      await model.forgetRevoked(host.hostId);
    });
  };

  return (
    <section class="host-section">
      <h2 class="host-name">{host.hostName}</h2>
      <PushSettings
        host={host}
        subscribedOnHost={listed?.find((device) => device.current)?.push?.subscribed}
        changed={reload}
      />
      <ul class="list">
        {devices.map((device) => {
          const self = device.deviceId === host.deviceId;
          return (
            <li
              key={device.deviceId}
              class="row device-row wrap-row"
              data-testid="device-row"
              data-device-id={device.deviceId}
              data-current={String(self)}
            >
              <span class="row-main">
                <span class="row-title" data-testid="device-name">
                  {device.name} {self && <span class="badge">this device</span>}
                </span>
                <span class="row-meta" data-testid="device-last-seen">
                  {device.platform} · last seen{' '}
                  {self && connected
                    ? 'now'
                    : device.lastSeenAt === null
                      ? 'never'
                      : ago(device.lastSeenAt, now)}
                </span>
                {device.push !== undefined && (
                  <span
                    class="row-meta"
                    data-testid="device-push"
                    data-subscribed={String(device.push.subscribed)}
                  >
                    {pushText(device.push, now)}
                  </span>
                )}
              </span>
              {renaming === device.deviceId ? (
                <DeviceRename
                  host={host}
                  deviceId={device.deviceId}
                  name={device.name}
                  onDone={(name) => {
                    setRenaming(undefined);
                    if (name === undefined) return;
                    setListed((current) =>
                      current?.map((d) => (d.deviceId === device.deviceId ? { ...d, name } : d)),
                    );
                  }}
                />
              ) : self && confirming ? (
                <span class="row-actions">
                  <ConfirmButtons
                    label="Revoke this device"
                    testId="device-revoke"
                    busy={action.busy !== undefined}
                    onConfirm={() => revoke(device)}
                    onCancel={() => setConfirming(false)}
                  />
                </span>
              ) : (
                <span class="row-actions">
                  <button
                    type="button"
                    class="button small"
                    data-testid="device-rename"
                    onClick={() => setRenaming(device.deviceId)}
                  >
                    Rename
                  </button>
                  <button
                    type="button"
                    class="button danger-outline small"
                    data-testid="device-revoke"
                    disabled={action.busy !== undefined}
                    onClick={() => (self ? setConfirming(true) : revoke(device))}
                  >
                    Revoke
                  </button>
                </span>
              )}
            </li>
          );
        })}
      </ul>
      {action.error !== undefined && <p class="error">{action.error}</p>}
    </section>
  );
}

/** A device's notifications in words: on or off, the last delivery, the last error. */
function pushText(push: DevicePush, now: number): string {
  const state = push.subscribed ? 'notifications on' : 'notifications off';
  const delivered =
    push.lastDeliveredAt === null ? '' : ` · last delivered ${ago(push.lastDeliveredAt, now)}`;
  const error = push.lastError === null ? '' : ` · last error: ${push.lastError}`;
  return `${state}${delivered}${error}`;
}
