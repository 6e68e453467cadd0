/**
 * A copy of the configuration that is safe to log or show.
 */
import type { HostConfig, ModelSettings } from './types.js';

/** {@link HostConfig} with the model's API key replaced by `"***"`. */
export type RedactedHostConfig = Omit<HostConfig, 'model'> & {
  model: (Omit<ModelSettings, 'apiKey'> & { apiKey?: '***' }) | null;
};

/** The configuration with every secret masked, for the start-up log line. */
export function redactedConfig(config: HostConfig): RedactedHostConfig {
  if (config.model === null) return { ...config, model: null };
  const { apiKey, ...model } = config.model;
  return { ...config, model: apiKey === undefined ? model : { ...model, apiKey: '***' } };
}
