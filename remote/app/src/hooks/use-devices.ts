/**
 * The devices a host lists (`devices.list`), asked again on each new connection.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Device } from '#protocol';
import type { HostView } from '../state/app-view.js';

/**
 * The host's answer (undefined until one came while connected; it has fresh last-seen
 * times), and a setter for the screen to drop a device it revoked.
 */
export function useDevices(host: HostView) {
  const [listed, setListed] = useState<readonly Device[] | undefined>(undefined);
  const connected = host.status.state === 'open';
  useEffect(() => {
    if (!connected) return;
    host.connection.request('devices.list', {}).then(
      (result) => setListed(result.devices),
      () => undefined,
    );
  }, [host.connection, connected]);
  return [listed, setListed] as const;
}
