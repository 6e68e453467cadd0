/**
 * The devices a host lists (`devices.list`), asked again on each new connection and when
 * the screen asks (after a change of this device's push).
 */
import { useEffect, useState } from 'preact/hooks';
import type { Device } from '#protocol';
import type { HostView } from '../state/app-view.js';

/**
 * The host's answer (undefined until one came while connected; it has fresh last-seen
 * times), a setter for the screen to drop a device it revoked, and `reload` to list again.
 */
export function useDevices(host: HostView) {
  const [listed, setListed] = useState<readonly Device[] | undefined>(undefined);
  const [asked, setAsked] = useState(0);
  const connected = host.status.state === 'open';
  useEffect(() => {
    if (!connected) return;
    host.connection.request('devices.list', {}).then(
      (result) => setListed(result.devices),
      () => undefined,
    );
  }, [host.connection, connected, asked]);
  const reload = () => setAsked((count) => count + 1);
  return [listed, setListed, reload] as const;
}
