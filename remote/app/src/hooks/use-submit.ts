/**
 * A view's commands to its host, through the connection's durable outbox.
 */
import type { HostView } from '../state/app-view.js';
import { useAction } from '../state/use-action.js';

/**
 * {@link useAction} (one action at a time, busy name, last error) and `submit`: the host
 * connection's own, stored and resent until answered.
 */
export function useSubmit(host: HostView) {
  return { ...useAction(), submit: host.connection.submit.bind(host.connection) };
}
