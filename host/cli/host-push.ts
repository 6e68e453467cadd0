/**
 * Web Push as `tether start` builds it from the config (docs/push.md): the dispatcher with
 * the host's name and VAPID keys, each workspace named in a push as the config names it.
 */
import type { HostConfig } from '../config/index.js';
import type { Logger } from '../log/index.js';
import { PushDispatcher } from '../push/index.js';
import type { Runtime } from '../runtime/index.js';
import type { Store } from '../store/index.js';
import type { HostSecrets } from './host-secrets.js';

/** The push dispatcher of the started host, logging as the `push` component. */
export function hostPush(
  config: HostConfig,
  parts: { store: Store; secrets: HostSecrets; workspaces: Runtime['workspaces']; log: Logger },
): PushDispatcher {
  const { store, secrets, workspaces } = parts;
  const log = parts.log.child({ component: 'push' });
  return new PushDispatcher(store, {
    host: {
      hostId: secrets.identity.id,
      hostName: config.hostName,
      workspaceName: (path) =>
        workspaces.find((workspace) => workspace.path === path)?.name ??
        path.split('/').filter(Boolean).at(-1) ??
        path,
    },
    keys: secrets.pushKeys,
    settings: config.push,
    log: (level, message, fields) => log[level](message, fields),
  });
}
