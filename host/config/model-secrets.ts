/**
 * The secrets of the model account the host must never write or send: the configured key,
 * the providers' key variables of the environment even when another is used, and
 * credentials in the base URL (its password, and the values of query parameters named
 * like a credential, e.g. `?api-key=`).
 */
import type { ModelSettings } from './types.js';

/** The environment variables that may hold a model key (model-settings.ts reads them). */
const KEY_VARIABLES = ['TETHER_MODEL_API_KEY', 'DEEPSEEK_API_KEY', 'OPENAI_API_KEY'];

export function modelSecrets(
  model: Pick<ModelSettings, 'apiKey' | 'baseUrl'> | null,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const secrets = KEY_VARIABLES.flatMap((name) => env[name] ?? []);
  if (model?.apiKey !== undefined) secrets.push(model.apiKey);
  const baseUrl = URL.parse(model?.baseUrl ?? '');
  if (baseUrl !== null) {
    if (baseUrl.password !== '') secrets.push(decodeURIComponent(baseUrl.password));
    for (const [name, value] of baseUrl.searchParams) {
      if (/key|token|secret|sig|password|auth/i.test(name)) secrets.push(value);
    }
  }
  return secrets.filter((secret) => secret !== '');
}

/**
 * Removes every variable holding one of `secrets` from `env` (the host's own
 * `process.env` once the key is read): an approved command could otherwise read it from
 * `/proc/<ppid>/environ` or `ps eww`. The provider variables go even when unused.
 */
export function forgetModelKeys(
  env: Record<string, string | undefined>,
  secrets: readonly string[],
): void {
  for (const [name, value] of Object.entries(env)) {
    if (KEY_VARIABLES.includes(name) || (value !== undefined && secrets.includes(value))) {
      delete env[name];
    }
  }
}
