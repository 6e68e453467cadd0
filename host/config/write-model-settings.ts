/**
 * `tether model set`: the non-secret model settings written into the config file, its
 * other keys kept, the result validated as the host would read it.
 */
import { ConfigError } from './config-error.js';
import { rewriteConfigFile } from './rewrite-config-file.js';
import { ConfigFile, parseSource } from './schema.js';
import type { ConfigIssue } from './types.js';

/** The settings `tether model set` may change; the key is never one of them. */
export interface ModelSettingsChange {
  baseUrl?: string;
  model?: string;
  provider?: string;
}

const FLAG_OF: Record<keyof ModelSettingsChange, string> = {
  baseUrl: '--base-url',
  model: '--model',
  provider: '--provider',
};

const ModelFlags = ConfigFile.shape.model.unwrap().pick({
  baseUrl: true,
  model: true,
  provider: true,
});

/**
 * Checks settings given on the command line (`--base-url`, `--model`, `--provider`) as
 * the config file would hold them, naming the flag of each bad one.
 *
 * @throws ConfigError from the `command line` source, fields named as the flags.
 */
export function checkModelFlags(change: ModelSettingsChange): void {
  const issues: ConfigIssue[] = [];
  parseSource(ModelFlags, change, 'command line', issues);
  if (issues.length === 0) return;
  throw new ConfigError(
    issues.map((issue) => ({
      ...issue,
      field: FLAG_OF[issue.field as keyof ModelSettingsChange] ?? issue.field,
    })),
  );
}

/**
 * Merges `change` into the config file's `model` object (creating the file, mode 0600,
 * if there is none) and writes it back atomically with its mode kept.
 *
 * @throws ConfigError when a flag's value is not valid (named as the flag), or the file
 *   cannot be read as a config file or the result would not be valid; nothing is written
 *   then.
 */
export function writeModelSettings(path: string, change: ModelSettingsChange): void {
  checkModelFlags(change);
  rewriteConfigFile(path, (current) => {
    const model = current['model'];
    return {
      ...current,
      model: { ...(typeof model === 'object' && model !== null ? model : {}), ...change },
    };
  });
}
