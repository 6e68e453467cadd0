/**
 * Contracts of host/mcp/: a configured server as the host runs it, and the record of the
 * process groups it started.
 */
import type { McpServerInfo } from '../../protocol/index.js';
import type { ConfiguredAccess } from '../sandbox/index.js';

/** allow / ask / deny, as the config says for a server or one of its tools. */
export type McpDecision = 'allow' | 'ask' | 'deny';

interface McpServerCommon {
  name: string;
  /** Every tool of the server unless `tools` names it. */
  policy: McpDecision;
  /** By the tool's name on the server. */
  tools: Readonly<Record<string, McpDecision>>;
  /** Whether the server's `readOnlyHint` may allow a tool. */
  trustHints: boolean;
  callTimeoutMs: number;
}

/** A configured server with its secrets read (host/mcp/server-settings.ts). */
export type McpServerSpec =
  | (McpServerCommon & {
      transport: 'stdio';
      command: string;
      args: readonly string[];
      /** The whole environment of the process: the minimal inherited one plus `env`. */
      env: Readonly<Record<string, string>>;
      cwd?: string;
      /** What the OS sandbox lets it touch; null when the config says `sandbox: false`. */
      sandbox: McpServerSandbox | null;
    })
  | (McpServerCommon & {
      transport: 'http';
      url: string;
      headers: Readonly<Record<string, string>>;
    });

/**
 * A stdio server's sandbox beyond the default (no writes but its own folder, the host's
 * reads, no secrets): real paths, its `cwd` among the readable ones.
 */
export type McpServerSandbox = ConfiguredAccess;

export type McpServerState = McpServerInfo['state'];

/** A stdio server's process group as recorded at spawn. */
export interface ServerGroup {
  pgid: number;
  server: string;
  startedAt: number;
}

/**
 * Where the host records the process groups of its stdio servers, so a host that dies
 * leaves nothing the next start does not kill (`store.mcpGroups`).
 */
export interface ServerGroupRecord {
  list(): ServerGroup[];
  add(group: ServerGroup): void;
  remove(pgid: number): void;
}
