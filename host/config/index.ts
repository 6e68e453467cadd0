/**
 * host/config: the host's configuration (defaults < config file < environment < flags),
 * its usage text, and the data directory.
 */
export { ConfigError } from './config-error.js';
export { ensureDataDir } from './data-dir.js';
export { resolveDataDir } from './defaults.js';
export { HOST_USAGE } from './flags.js';
export { loadHostConfig } from './load-host-config.js';
export { forgetModelKeys, modelSecrets } from './model-secrets.js';
export { redactedConfig } from './redact.js';
export { checkModelFlags, writeModelSettings } from './write-model-settings.js';
export { removeVoiceSettings, writeVoiceSettings } from './write-voice-settings.js';
export type {
  ConfigIssue,
  HostConfig,
  KeepAwake,
  KeyStore,
  PushBody,
  PushSettings,
  Workspace,
} from './types.js';
