/**
 * Which service manager runs the host here: launchd on macOS, systemd's user instance on
 * Linux (`TETHER_SERVICE_MANAGER` chooses one, for tests of the other's path).
 */
import { homedir } from 'node:os';
import { z } from 'zod';
import { launchAgents } from './launch-agent.js';
import type { ServiceManager } from './service-spec.js';
import { systemdUser } from './systemd-unit.js';

const Manager = z.enum(['launchd', 'systemd']);

/**
 * This machine's service manager.
 *
 * @throws Error on a platform without one, or for a `TETHER_SERVICE_MANAGER` it does not know.
 */
export function chooseServiceManager(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): ServiceManager {
  const forced = env['TETHER_SERVICE_MANAGER'];
  const chosen = Manager.safeParse(forced);
  if (forced !== undefined && forced !== '' && !chosen.success) {
    throw new Error(`TETHER_SERVICE_MANAGER=${forced}: expected launchd or systemd (or unset it)`);
  }
  const kind = chosen.success
    ? chosen.data
    : platform === 'darwin'
      ? 'launchd'
      : platform === 'linux'
        ? 'systemd'
        : null;
  if (kind === null) {
    throw new Error(
      `tether service supports macOS (launchd) and Linux (systemd), not ${platform}: ` +
        'run tether start in a terminal instead',
    );
  }
  const uid = process.getuid?.() ?? 0;
  return kind === 'launchd' ? launchAgents(homedir(), uid) : systemdUser(homedir());
}

/** The launchd label or systemd unit `--name` defaults to. */
export function defaultServiceName(manager: ServiceManager): string {
  return manager.kind === 'launchd' ? 'dev.tether.host' : 'tether';
}
