/**
 * A copy of the configuration that is safe to log or show.
 */
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

/** The configuration with every secret masked, for the start-up log line. */
export function redactedConfig(config: HostConfig): RedactedHostConfig {
  const mcp = redactedMcp(config.mcp);
  if (config.model === null) return { ...config, mcp, model: null };
  const { apiKey, ...model } = config.model;
  return { ...config, mcp, model: apiKey === undefined ? model : { ...model, apiKey: '***' } };
}
