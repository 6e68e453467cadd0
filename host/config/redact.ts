/**
 * A copy of the configuration that is safe to log or show.
 */
import type { AgentsConfig } from '../agents/index.js';
import type { McpConfig } from '../mcp/index.js';
import type { HostConfig, ModelSettings, VoiceSettings } from './types.js';

/** {@link HostConfig} with the model's and the voice endpoint's API keys replaced by `"***"`. */
export type RedactedHostConfig = Omit<HostConfig, 'model' | 'voice'> & {
  model: (Omit<ModelSettings, 'apiKey'> & { apiKey?: '***' }) | null;
  voice: (Omit<VoiceSettings, 'apiKey'> & { apiKey?: '***' }) | null;
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
  const masked = <S extends { apiKey?: string }>(settings: S | null) => {
    if (settings === null) return null;
    const { apiKey, ...rest } = settings;
    return apiKey === undefined ? rest : { ...rest, apiKey: '***' as const };
  };
  return {
    ...config,
    mcp: redactedMcp(config.mcp),
    agents: redactedAgents(config.agents),
    model: masked(config.model),
    voice: masked(config.voice),
  };
}
