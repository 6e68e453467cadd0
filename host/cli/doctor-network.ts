/**
 * The checks of `tether doctor` about reaching the host: is it running, its LAN addresses
 * and `.local` name, `tailscale serve`, and the service (`tether service status`, when this
 * version has it).
 */
import { execFile } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { readdirSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readAdminFile } from '../server/index.js';
import { isAlive } from './admin-client.js';
import { localHostName } from '../tls/index.js';
import { tetherCommand } from '../../common/cli/index.js';
import type { CheckResult } from './doctor-checks.js';

/** Where a running host answers, from its admin file (null when none runs). */
export interface RunningHostInfo {
  url: string;
  port: number;
  pid: number;
}

export function runningHost(dataDir: string): RunningHostInfo | null {
  try {
    const file = readAdminFile(dataDir);
    if (file === undefined || !isAlive(file.pid)) return null;
    return { url: file.url, port: Number(new URL(file.url).port), pid: file.pid };
  } catch {
    return null;
  }
}

export function checkHost(dataDir: string, host: RunningHostInfo | null): CheckResult {
  return host === null
    ? {
        id: 'host',
        status: 'fail',
        detail: `no host is running for ${dataDir}`,
        fix: `${tetherCommand()} start --data '${dataDir}'`,
      }
    : { id: 'host', status: 'pass', detail: `running (pid ${host.pid}) at ${host.url}` };
}

/** Private IPv4 and IPv6 addresses a phone on the LAN could use. */
function lanAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((entry) => !entry.internal && (entry.scopeid ?? 0) === 0)
    .map((entry) => entry.address);
}

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
  try {
    const found = await Promise.race([
      lookup(name, { all: true }),
      sleep(3_000).then(() => Promise.reject(new Error('timeout'))),
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
  }
}

function run(
  command: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string; missing: boolean }> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 10_000 }, (error, stdout, stderr) => {
      const code = (error as NodeJS.ErrnoException | null)?.code;
      resolve({
        code: error === null ? 0 : typeof code === 'number' ? code : 1,
        stdout,
        stderr,
        missing: code === 'ENOENT',
      });
    });
  });
}

/** `tailscale serve status --json`: does some handler proxy to the host's port? */
export async function checkTailscale(port: number): Promise<CheckResult> {
  const status = await run('tailscale', ['serve', 'status', '--json']);
  if (status.missing)
    return { id: 'tailscale', status: 'skip', detail: 'tailscale is not installed' };
  const fix = `tailscale serve --bg ${port}`;
  if (status.code !== 0) {
    return { id: 'tailscale', status: 'fail', detail: 'tailscale serve status failed', fix };
  }
  const targets = [...status.stdout.matchAll(/"Proxy"\s*:\s*"([^"]+)"/g)].map((m) => m[1] ?? '');
  if (targets.length === 0) {
    return { id: 'tailscale', status: 'fail', detail: 'tailscale serve serves nothing', fix };
  }
  const ours = targets.find((target) =>
    new RegExp(`^(https?://)?(127\\.0\\.0\\.1|localhost|\\[::1\\])?:?${port}/?$`).test(target),
  );
  return ours === undefined
    ? {
        id: 'tailscale',
        status: 'fail',
        detail: `tailscale serve points at ${targets.join(', ')}, not the host's port ${port}`,
        fix,
      }
    : { id: 'tailscale', status: 'pass', detail: `tailscale serve proxies to ${ours}` };
}

/** Whether this build has `tether service` (host/cli/service-*.ts, built beside this file). */
function hasServiceCommand(): boolean {
  const here = dirname(fileURLToPath(import.meta.url));
  return readdirSync(here).some((name) => name.startsWith('service-') && name.endsWith('.js'));
}

/** `tether service status` of this same installation: exit 0 means installed and running. */
export async function checkService(dataDir: string): Promise<CheckResult> {
  if (!hasServiceCommand()) {
    return { id: 'service', status: 'skip', detail: 'this version has no `tether service`' };
  }
  const bin = fileURLToPath(new URL('../../../bin/tether.js', import.meta.url));
  const status = await run(process.execPath, [bin, 'service', 'status', '--data', dataDir]);
  if (status.stderr.includes('unknown command')) {
    return { id: 'service', status: 'skip', detail: 'this version has no `tether service`' };
  }
  // `tether service status` prints `field: value` lines; these say installed and running.
  const lines = status.stdout.trim().split('\n');
  const summary =
    lines.filter((line) => /^(file|loaded|running|pid):/.test(line)).join('; ') || (lines[0] ?? '');
  return status.code === 0
    ? { id: 'service', status: 'pass', detail: summary || 'installed and running' }
    : {
        id: 'service',
        status: 'fail',
        detail: summary || 'not installed or not running',
        fix: `${tetherCommand()} service install --data '${dataDir}'`,
      };
}
