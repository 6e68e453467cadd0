/**
 * The sandbox request of a program whose config names what it may touch besides its
 * workspace (an ACP agent, an MCP server: `writable`, `readable`, `network`).
 */
import type { SandboxRequest } from './types.js';

export interface ConfiguredAccess {
  /** Real paths it may change. */
  writable: readonly string[];
  /** Real paths it reads outside the system's folders. */
  readable: readonly string[];
  /** The only hosts it may reach (network-hosts patterns); absent: all of the network. */
  network?: readonly string[] | undefined;
}

/** What `access` asks of the sandbox: its paths, and the hosts listed, else all the network. */
export function configuredRequest(access: ConfiguredAccess): SandboxRequest {
  return {
    write: access.writable,
    read: access.readable,
    ...(access.network === undefined ? { network: true } : { hosts: access.network }),
  };
}
