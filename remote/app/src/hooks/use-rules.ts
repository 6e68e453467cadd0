/**
 * The allow rules a host lists (`policy.rules`), asked on each new connection and when the
 * screen asks again (after removing one).
 */
import { useEffect, useState } from 'preact/hooks';
import type { AllowRule } from '#protocol';
import type { HostView } from '../state/app-view.js';

/**
 * The host's rules (undefined until it answered while connected), an error in words when
 * it could not list them, and `reload` to list again.
 */
export function useRules(host: HostView) {
  const [listed, setListed] = useState<readonly AllowRule[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [asked, setAsked] = useState(0);
  const connected = host.status.state === 'open';
  useEffect(() => {
    if (!connected) return;
    host.connection.request('policy.rules', {}).then(
      (result) => {
        setListed(result.rules);
        setError(undefined);
      },
      (failure: unknown) =>
        setError(failure instanceof Error ? failure.message : 'The host did not list its rules.'),
    );
  }, [host.connection, connected, asked]);
  const reload = () => setAsked((count) => count + 1);
  return { rules: listed, error, reload };
}
