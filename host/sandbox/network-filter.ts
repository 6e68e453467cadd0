/**
 * One call's network held to some hosts (`SandboxRequest.hosts`): the host's proxy to
 * them (./network-proxy.ts) started for the call, and the command as it runs behind it:
 * in bubblewrap behind the bridge to the proxy's socket (./network-bridge.ts), under
 * Seatbelt with the proxy's loopback port in its environment.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { bridgedCommand, proxyEnvironment } from './network-bridge.js';
import { parseHostPattern, type HostPattern } from './network-hosts.js';
import { NetworkProxy } from './network-proxy.js';

export interface NetworkFilter {
  /** The proxy's loopback port, the one address a Seatbelt profile allows; else null. */
  proxyPort: number | null;
  /** A folder the command must be able to read: the host's `node`, which runs the bridge. */
  programFolder: string | null;
  /** `argv` as it runs behind the proxy, and the variables it needs for that. */
  command(argv: readonly string[]): { argv: string[]; env: Record<string, string> };
  /** Stops the proxy and cuts every connection through it. */
  close(): void;
}

/** The patterns of `hosts`, validated with the config that named them. Throws for one that is not. */
export function hostPatterns(hosts: readonly string[]): HostPattern[] {
  return hosts.map((host) => {
    const pattern = parseHostPattern(host);
    if (pattern === null) throw new Error(`not a host a sandbox may reach: ${host}`);
    return pattern;
  });
}

/**
 * Starts the proxy to `patterns` for a call in a `kind` sandbox whose temporary folder is
 * `tempDir` (bubblewrap shows it, so the proxy's socket goes there); `onRefused` hears
 * each refused `host:port`. Throws what listening throws.
 */
export async function startNetworkFilter(
  kind: 'bwrap' | 'seatbelt',
  patterns: readonly HostPattern[],
  tempDir: string,
  onRefused: (target: string) => void,
): Promise<NetworkFilter> {
  if (kind === 'seatbelt') {
    const proxy = await NetworkProxy.start(patterns, { loopback: true }, onRefused);
    const env = proxyEnvironment(`http://127.0.0.1:${proxy.port}`);
    return {
      proxyPort: proxy.port,
      programFolder: null,
      command: (argv) => ({ argv: [...argv], env }),
      close: () => proxy.close(),
    };
  }
  const socket = path.join(tempDir, '.tether-proxy');
  const proxy = await NetworkProxy.start(patterns, { socket }, onRefused);
  const node = realpathSync(process.execPath);
  return {
    proxyPort: null,
    programFolder: path.dirname(node),
    command: (argv) => bridgedCommand(node, socket, argv),
    close: () => proxy.close(),
  };
}
