/**
 * The names a phone on the LAN may use for this Mac: its mDNS `.local` name, its private
 * LAN addresses, and the loopback names.
 */
import { execFileSync } from 'node:child_process';
import { hostname, networkInterfaces } from 'node:os';
import { isPermittedAddress, type ServerNames } from './certificates.js';

/** macOS's Bonjour name (`scutil --get LocalHostName`), else the host name, without `.local`. */
export function localHostName(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') {
    try {
      const name = execFileSync('scutil', ['--get', 'LocalHostName'], {
        encoding: 'utf8',
        timeout: 2_000,
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
      if (name !== '') return name;
    } catch {
      // No LocalHostName set: fall back to the host name below.
    }
  }
  return (
    hostname()
      .replace(/\.local$/i, '')
      .split('.')[0] ?? 'localhost'
  );
}

/**
 * `<name>.local`, `localhost`, the non-internal IPv4 and IPv6 addresses inside the
 * local CA's permitted networks (private ranges; public ones would void the whole chain),
 * and 127.0.0.1 and ::1. Sorted, so a change of order is no change.
 */
export function serverNames(name = localHostName()): ServerNames {
  const dns = [...new Set([`${name.toLowerCase()}.local`, 'localhost'])];
  const ips = new Set<string>(['127.0.0.1', '::1']);
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.internal || (address.scopeid !== undefined && address.scopeid !== 0)) continue;
      if (isPermittedAddress(address.address)) ips.add(address.address);
    }
  }
  return { dns, ips: [...ips].sort() };
}
