/**
 * Resolving the model endpoint from the config file, Tether's variables and the
 * providers' own API key variables.
 */
import type { EnvSettings, FileModelSettings } from './schema.js';
import type { ConfigIssue, ModelSettings } from './types.js';

/**
 * Providers whose own key variable is enough to pick their endpoint. No model name is
 * implied: providers rename and retire models (DeepSeek retired `deepseek-chat` in 2026),
 * so the name always comes from TETHER_MODEL or `model.model`.
 */
const PRESETS = [
  { provider: 'deepseek', keyEnv: 'DEEPSEEK_API_KEY', baseUrl: 'https://api.deepseek.com' },
  { provider: 'openai', keyEnv: 'OPENAI_API_KEY', baseUrl: 'https://api.openai.com/v1' },
] as const;

/** The config file's `model` object and whether a literal key may be read from it. */
export interface FileModelSource {
  source: string;
  model: FileModelSettings;
  /** True when the file is readable by its owner alone (mode 0600 or stricter). */
  isPrivate: boolean;
}

export interface ModelInputs {
  file: FileModelSource | null;
  env: EnvSettings;
  /** The whole environment, for `model.apiKeyEnv`. */
  rawEnv: Readonly<Record<string, string | undefined>>;
  issues: ConfigIssue[];
  warnings: string[];
}

/**
 * Later wins: the config file, then TETHER_MODEL_BASE_URL / TETHER_MODEL /
 * TETHER_MODEL_API_KEY. With no base URL at all, DEEPSEEK_API_KEY (else OPENAI_API_KEY)
 * picks that provider's endpoint; with a base URL on their host, it supplies a missing
 * key. Returns null when nothing is configured, or when only a provider key is set
 * without a model name (a warning: such keys are often set for other tools).
 */
export function resolveModelSettings(inputs: ModelInputs): ModelSettings | null {
  const { env, issues, warnings } = inputs;
  const file = inputs.file?.model ?? {};
  const fileSource = inputs.file?.source ?? 'config file';
  const fileKey = fileApiKey(inputs, fileSource);
  const model = env.TETHER_MODEL ?? file.model;
  const apiKey = env.TETHER_MODEL_API_KEY ?? fileKey;
  const baseUrl = env.TETHER_MODEL_BASE_URL ?? file.baseUrl;
  const extras = {
    provider: file.provider,
    extraBody: file.extraBody,
    contextTokens: file.contextTokens,
  };

  if (baseUrl === undefined) {
    const available = PRESETS.filter((preset) => inputs.rawEnv[preset.keyEnv]);
    const preset = available[0];
    if (preset === undefined) {
      if (
        model !== undefined ||
        apiKey !== undefined ||
        file.provider ||
        file.extraBody ||
        file.contextTokens
      ) {
        issues.push({
          source: 'model settings',
          field: 'baseUrl',
          message:
            'a model is partly configured but has no base URL: set TETHER_MODEL_BASE_URL ' +
            'or model.baseUrl (or DEEPSEEK_API_KEY / OPENAI_API_KEY for those providers)',
        });
      }
      return null;
    }
    if (model === undefined) {
      warnings.push(
        `${preset.keyEnv} is set but no model is named (TETHER_MODEL or model.model): ` +
          'starting without a model',
      );
      return null;
    }
    if (available.length > 1) {
      warnings.push(
        `${available.map((p) => p.keyEnv).join(' and ')} are both set: using ` +
          `${preset.baseUrl} (set TETHER_MODEL_BASE_URL to choose)`,
      );
    }
    return settings(preset.baseUrl, model, apiKey ?? inputs.rawEnv[preset.keyEnv], {
      ...extras,
      provider: extras.provider ?? preset.provider,
    });
  }

  const host = new URL(baseUrl).host;
  const preset = PRESETS.find((candidate) => new URL(candidate.baseUrl).host === host);
  if (model === undefined) {
    issues.push({
      source: 'model settings',
      field: 'model',
      message: `base URL ${baseUrl} is set but no model is named: set TETHER_MODEL or model.model`,
    });
    return null;
  }
  return settings(baseUrl, model, apiKey ?? (preset && inputs.rawEnv[preset.keyEnv]), {
    ...extras,
    provider: extras.provider ?? preset?.provider,
  });
}

/** The key the config file gives: from `apiKeyEnv`, or a literal `apiKey` in a private file. */
function fileApiKey(inputs: ModelInputs, source: string): string | undefined {
  const file = inputs.file?.model;
  if (file === undefined) return undefined;
  if (file.apiKey !== undefined && file.apiKeyEnv !== undefined) {
    inputs.issues.push({
      source,
      field: 'model.apiKey',
      message: 'give model.apiKey or model.apiKeyEnv, not both',
    });
    return undefined;
  }
  if (file.apiKeyEnv !== undefined) {
    const value = inputs.rawEnv[file.apiKeyEnv];
    if (value) return value;
    inputs.issues.push({
      source,
      field: 'model.apiKeyEnv',
      message: `environment variable ${file.apiKeyEnv} is not set`,
    });
    return undefined;
  }
  if (file.apiKey !== undefined && !inputs.file?.isPrivate) {
    inputs.issues.push({
      source,
      field: 'model.apiKey',
      message:
        'a literal API key is only read from a file no one else can read (chmod 600); ' +
        'or put the key in an environment variable and name it in model.apiKeyEnv',
    });
    return undefined;
  }
  return file.apiKey;
}

function settings(
  baseUrl: string,
  model: string,
  apiKey: string | undefined,
  extras: Pick<ModelSettings, 'provider' | 'extraBody' | 'contextTokens'>,
): ModelSettings {
  const out: ModelSettings = { baseUrl, model };
  if (apiKey) out.apiKey = apiKey;
  if (extras.provider !== undefined) out.provider = extras.provider;
  if (extras.extraBody !== undefined) out.extraBody = extras.extraBody;
  if (extras.contextTokens !== undefined) out.contextTokens = extras.contextTokens;
  return out;
}
