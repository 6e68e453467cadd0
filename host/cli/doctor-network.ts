/**
 * The checks of `tether doctor` about reaching the host: is it running, its LAN addresses
 * and `.local` name, and the service (what `tether service status` says).
 */
import { lookup } from 'node:dns/promises';
import { networkInterfaces } from 'node:os';
import { readAdminFile } from '../server/index.js';
import { hostNearby, isAlive } from './admin-client.js';
import { localHostName } from '../tls/index.js';
import { tetherCommand } from '../../common/cli/index.js';
import type { CheckResult } from './doctor-checks.js';
import { chooseServiceManager, defaultServiceName } from './service-manager.js';
import type { ServiceManager } from './service-spec.js';
import { conflictFix, describeHolder, serviceReport } from './service-status.js';

/** Where a running host answers, from its admin file (null when none runs). */
export interface RunningHostInfo {
  url: string;
  port: number;
  pid: number;
  /** With `--tailscale`: the origin `tailscale serve` publishes it at. */
  tailnetOrigin: string | undefined;
}

export function runningHost(dataDir: string): RunningHostInfo | null {
  try {
    const file = readAdminFile(dataDir);
    if (file === undefined || !isAlive(file.pid)) return null;
    const port = Number(new URL(file.url).port);
    return { url: file.url, port, pid: file.pid, tailnetOrigin: file.tailnetOrigin };
  } catch {
    return null;
  }
}

/**
 * The host of `dataDir`; when none runs there but one runs on the demo's data directory
 * beside it (`tether start --demo`), that one, with how to check its own data.
 */
export function checkHost(dataDir: string, host: RunningHostInfo | null): CheckResult {
  if (host !== null) {
    return { id: 'host', status: 'pass', detail: `running (pid ${host.pid}) at ${host.url}` };
  }
  const near = hostNearby(dataDir);
  const nearHost = near === undefined ? null : runningHost(near);
  if (near !== undefined && nearHost !== null) {
    return {
      id: 'host',
      status: 'warn',
      detail: `no host is running for ${dataDir}, but one is for ${near} (pid ${nearHost.pid}) at ${nearHost.url}`,
      fix: `${tetherCommand()} doctor --data '${near}' checks that one`,
    };
  }
  return {
    id: 'host',
    status: 'fail',
    detail: `no host is running for ${dataDir}`,
    fix: `${tetherCommand()} start --data '${dataDir}'`,
  };
}

/** Private IPv4 and IPv6 addresses a phone on the LAN could use. */
function lanAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((entry) => !entry.internal && (entry.scopeid ?? 0) === 0)
    .map((entry) => entry.address);
}

/** How long the `.local` name may take to resolve before it counts as not resolving. */
const MDNS_TIMEOUT_MS = 3_000;

export async function checkLan(
  port: number,
  platform: NodeJS.Platform = process.platform,
): Promise<CheckResult[]> {
  const addresses = lanAddresses();
  const lan: CheckResult =
    addresses.length === 0
      ? {
          id: 'lan',
          status: 'fail',
          detail: 'no LAN address: a phone cannot reach this machine',
          fix: 'connect to a network (Wi-Fi or Ethernet)',
        }
      : { id: 'lan', status: 'pass', detail: addresses.join(', ') };
  const name = `${localHostName(platform)}.local`;
  const first = addresses.find((address) => !address.includes(':')) ?? addresses[0];
  const origin = `--origin http://${first ?? '<LAN address>'}:${port}`;
  let timer: NodeJS.Timeout | undefined;
  try {
    const found = await Promise.race([
      lookup(name, { all: true }),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), MDNS_TIMEOUT_MS);
      }),
    ]);
    const list = found.map((entry) => entry.address).join(', ');
    return [lan, { id: 'mdns', status: 'pass', detail: `${name} resolves to ${list}` }];
  } catch {
    // Only macOS promises mDNS; elsewhere a missing .local name is normal, and links can name an address.
    if (platform !== 'darwin') {
      return [
        lan,
        {
          id: 'mdns',
          status: 'skip',
          detail: `${name} does not resolve here: pair with ${origin}`,
        },
      ];
    }
    return [
      lan,
      {
        id: 'mdns',
        status: 'fail',
        detail: `${name} does not resolve`,
        fix: `check System Settings → General → Sharing → Local hostname, or pair with tether pair ${origin}`,
      },
    ];
  } finally {
    // A lookup that failed at once must not keep doctor waiting for its timeout.
    clearTimeout(timer);
  }
}

/**
 * The service of this installation: installed and running, or what stops it. A port in use
 * is not cured by installing again: the fix names the process that holds the port.
 */
export async function checkService(dataDir: string): Promise<CheckResult> {
  let manager: ServiceManager;
  try {
    manager = chooseServiceManager();
  } catch (error) {
    return { id: 'service', status: 'skip', detail: (error as Error).message };
  }
  const name = defaultServiceName(manager);
  const report = await serviceReport(manager, name, manager.installedDataDir(name) ?? dataDir);
  const notes = report.notes.length === 0 ? '' : `; ${report.notes.join('; ')}`;
  // Not a failure: a host started by hand works; the service keeps it running after login.
  if (!report.installed) {
    return {
      id: 'service',
      status: 'warn',
      detail: `not installed (${report.file}): the host runs only while started by hand`,
      fix: `${tetherCommand()} service install --data '${dataDir}'`,
    };
  }
  if (report.running) {
    return {
      id: 'service',
      status: 'pass',
      detail: `${report.file}: running, pid ${report.pid ?? '?'}${notes}`,
    };
  }
  const exit = report.lastExit === null ? '' : ` (last exit ${report.lastExit})`;
  if (report.conflict !== null) {
    return {
      id: 'service',
      status: 'fail',
      detail: `installed but not running${exit}: ${report.conflict.resource} is in use by ${describeHolder(report.conflict)}`,
      fix: conflictFix(report.conflict),
    };
  }
  const error = report.lastError === null ? '' : `: ${report.lastError}`;
  return {
    id: 'service',
    status: 'fail',
    detail: `installed but not running${exit}${error}${notes}`,
    fix: `${tetherCommand()} service logs, then ${tetherCommand()} service restart`,
  };
}
