/**
 * Every configured MCP server of the host: started together, stopped together, their
 * tools offered to runs as `mcp__<server>__<tool>` and decided by the config's policy.
 */
import { uptime } from 'node:os';
import type { McpServerInfo } from '../../protocol/index.js';
import type { Logger } from '../log/index.js';
import type { PolicyDecision } from '../policy/index.js';
import type { Sandbox } from '../sandbox/index.js';
import { killProcessGroup, type ToolDefinition } from '../tools/index.js';
import {
  DEFAULT_CONNECTION_LIMITS,
  McpConnection,
  type ConnectionLimits,
} from './mcp-connection.js';
import { parseMcpToolName } from './mcp-tool-name.js';
import type { McpServerSpec, ServerGroupRecord } from './types.js';

export interface McpServersOptions {
  log: Logger;
  /** The machine's OS sandbox: each stdio server runs in it unless its config says not. */
  sandbox: Sandbox;
  groups: ServerGroupRecord;
  version: string;
  limits?: Partial<ConnectionLimits>;
  /**
   * Masks the host's secrets in a server's error (`lastError`), which host.info sends to
   * remotes as it is: the logger masks its own lines only. Default: none.
   */
  mask?: (text: string) => string;
}

export class McpServers {
  private readonly connections = new Map<string, McpConnection>();
  private readonly groups: ServerGroupRecord;
  private readonly sandbox: Sandbox;
  private readonly log: Logger;
  private readonly listeners = new Set<() => void>();

  constructor(specs: readonly McpServerSpec[], options: McpServersOptions) {
    this.groups = options.groups;
    this.sandbox = options.sandbox;
    this.log = options.log;
    const limits = { ...DEFAULT_CONNECTION_LIMITS, ...options.limits };
    for (const spec of specs) {
      const connection = new McpConnection(spec, {
        log: options.log,
        sandbox: options.sandbox,
        groups: options.groups,
        limits,
        version: options.version,
        ...(options.mask === undefined ? {} : { mask: options.mask }),
        onChange: () => {
          for (const listener of this.listeners) listener();
        },
      });
      this.connections.set(spec.name, connection);
    }
  }

  /**
   * Kills the groups of stdio servers a host that died left running (those started since
   * the machine booted; an older id may belong to someone else now), then starts every
   * server. Resolves once the old groups are gone, not when the servers are connected.
   */
  async start(): Promise<void> {
    const bootedAt = Date.now() - uptime() * 1000;
    await Promise.all(
      this.groups.list().map(async (group) => {
        if (group.startedAt >= bootedAt) {
          // The table holds agents' groups too (host/agents/agents.ts), named `agent:<name>`.
          const what = group.server.startsWith('agent:') ? 'an agent' : 'an MCP server';
          this.log.warn(`killing ${what} left by the previous host`, { ...group });
          await killProcessGroup(group.pgid, 2_000).catch((error: unknown) =>
            this.log.error(`cannot kill ${what} left by the previous host`, {
              ...group,
              error: String(error),
            }),
          );
        }
        this.groups.remove(group.pgid);
      }),
    );
    for (const connection of this.connections.values()) {
      const { spec } = connection;
      const { status } = this.sandbox;
      if (spec.transport === 'stdio' && spec.sandbox !== null && !status.available) {
        this.log.warn('mcp server runs outside the sandbox: none can run here; its tools ask', {
          mcpServer: spec.name,
          reason: status.reason,
        });
      }
      connection.start();
    }
  }

  async stop(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.stop()));
  }

  /** Hears every change of a server's state or tools. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The servers as `host.info` lists them, in config order. */
  servers(): McpServerInfo[] {
    return [...this.connections.values()].map((connection) => connection.info());
  }

  /** Tools of the connected servers: what a model turn is offered. */
  offeredTools(): ToolDefinition<unknown>[] {
    return [...this.connections.values()].flatMap((connection) =>
      connection.connected ? [...connection.listedTools()].map((tool) => tool.definition) : [],
    );
  }

  /** The tool called `name` as its server listed it last, connected or not. */
  get(name: string): ToolDefinition<unknown> | undefined {
    return this.find(name)?.tool?.definition;
  }

  private find(name: string) {
    const parsed = parseMcpToolName(name);
    if (parsed === null) return undefined;
    const connection = this.connections.get(parsed.server);
    if (connection === undefined) return undefined;
    for (const tool of connection.listedTools()) {
      if (tool.definition.name === name) return { connection, tool, parsed };
    }
    return { connection, tool: undefined, parsed };
  }

  /**
   * Policy for an MCP tool (docs/policy.md, "MCP tools"): the tool's own setting, else the
   * server's, else the server's `readOnlyHint` where `trustHints` is set, else ask; an
   * allow asks instead for a server meant for the sandbox on a machine without one. Null
   * for a name that is not an MCP tool's.
   */
  decide(name: string): PolicyDecision | null {
    const decision = this.configured(name);
    if (decision?.decision !== 'allow') return decision;
    // A server meant for the sandbox runs with full access where there is none: as a
    // command there, nothing of it runs unasked.
    const { spec } = this.find(name)!.connection;
    const { status } = this.sandbox;
    if (spec.transport !== 'stdio' || spec.sandbox === null || status.available) return decision;
    return {
      decision: 'ask',
      reason: `${decision.reason}, but no sandbox can run here (${status.reason}), so MCP server ${spec.name} runs with full access and its tools ask first`,
    };
  }

  /** {@link decide} as the config alone says it. */
  private configured(name: string): PolicyDecision | null {
    const parsed = parseMcpToolName(name);
    if (parsed === null) return null;
    const found = this.find(name);
    if (found === undefined) {
      return { decision: 'deny', reason: `no MCP server named ${parsed.server} is configured` };
    }
    const { spec } = found.connection;
    const where = `${parsed.tool} of MCP server ${spec.name}`;
    // A server names its tools: `constructor` must not find Object.prototype's member.
    const own = Object.hasOwn(spec.tools, parsed.tool) ? spec.tools[parsed.tool] : undefined;
    if (own !== undefined) {
      return { decision: own, reason: `the config says ${own} for ${where}` };
    }
    if (spec.policy !== 'ask') {
      return {
        decision: spec.policy,
        reason: `the config says ${spec.policy} for every tool of MCP server ${spec.name}`,
      };
    }
    if (spec.trustHints && found.tool?.readOnlyHint === true) {
      return {
        decision: 'allow',
        reason: `the server says ${parsed.tool} only reads, and the config trusts the hints of ${spec.name}`,
      };
    }
    return { decision: 'ask', reason: `tools of MCP servers ask first: ${where}` };
  }
}
