/**
 * A copy of the configuration that is safe to log or show.
 */
import type { AgentsConfig } from '../agents/index.js';
import type { McpConfig } from '../mcp/index.js';
import type { HostConfig, ModelSettings } from './types.js';

/** {@link HostConfig} with the model's API key replaced by `"***"`. */
export type RedactedHostConfig = Omit<HostConfig, 'model'> & {
  model: (Omit<ModelSettings, 'apiKey'> & { apiKey?: '***' }) | null;
};

/** MCP `env` and `headers` with plain values masked: a token may have been written there. */
function redactedMcp(mcp: McpConfig): McpConfig {
  const mask = (values: Record<string, unknown> | undefined) =>
    values === undefined
      ? undefined
      : Object.fromEntries(
          Object.entries(values).map(([key, value]) => [
            key,
            typeof value === 'string' ? '***' : value,
          ]),
        );
  const servers = Object.fromEntries(
    Object.entries(mcp.servers ?? {}).map(([name, server]) => {
      const env = mask(server.env);
      const headers = mask(server.headers);
      return [
        name,
        {
          ...server,
          ...(env === undefined ? {} : { env }),
          ...(headers === undefined ? {} : { headers }),
        },
      ];
    }),
  );
  return { servers } as McpConfig;
}

/** Agents' `env` with plain values masked, as MCP servers' are. */
function redactedAgents(agents: AgentsConfig): AgentsConfig {
  return Object.fromEntries(
    Object.entries(agents).map(([name, agent]) => [
      name,
      agent.env === undefined
        ? agent
        : {
            ...agent,
            env: Object.fromEntries(
              Object.entries(agent.env).map(([key, value]) => [
                key,
                typeof value === 'string' ? '***' : value,
              ]),
            ),
          },
    ]),
  );
}

/** The configuration with every secret masked, for the start-up log line. */
export function redactedConfig(config: HostConfig): RedactedHostConfig {
  const mcp = redactedMcp(config.mcp);
  const agents = redactedAgents(config.agents);
  if (config.model === null) return { ...config, mcp, agents, model: null };
  const { apiKey, ...model } = config.model;
  return {
    ...config,
    mcp,
    agents,
    model: apiKey === undefined ? model : { ...model, apiKey: '***' },
  };
}
