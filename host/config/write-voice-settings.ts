/**
 * `tether voice set` and `tether voice unset`: the transcription endpoint written into, or
 * removed from, the config file's `voice` object, its other keys kept, the result
 * validated as the host would read it. The key is kept apart (host/identity).
 */
import { ConfigError } from './config-error.js';
import { rewriteConfigFile } from './rewrite-config-file.js';
import { ConfigFile, parseSource } from './schema.js';
import type { ConfigIssue, VoiceSettings } from './types.js';

/** The settings `tether voice set` may change; the key is never one of them. */
export type VoiceSettingsChange = Partial<Omit<VoiceSettings, 'apiKey'>>;

const FLAG_OF: Record<keyof VoiceSettingsChange, string> = {
  baseUrl: '--base-url',
  model: '--model',
  language: '--language',
};

const VoiceFlags = ConfigFile.shape.voice.unwrap().partial();

/**
 * Merges `change` into the config file's `voice` object (creating the file, mode 0600, if
 * there is none); a first `voice set` must name both the base URL and the model.
 *
 * @throws ConfigError naming the flag of a bad value, or the file's problem; nothing is
 *   written then.
 */
export function writeVoiceSettings(path: string, change: VoiceSettingsChange): void {
  const issues: ConfigIssue[] = [];
  parseSource(VoiceFlags, change, 'command line', issues);
  if (issues.length > 0) {
    throw new ConfigError(
      issues.map((issue) => ({
        ...issue,
        field: FLAG_OF[issue.field as keyof VoiceSettingsChange] ?? issue.field,
      })),
    );
  }
  rewriteConfigFile(path, (current) => {
    const voice = current['voice'];
    const merged = { ...(typeof voice === 'object' && voice !== null ? voice : {}), ...change };
    for (const field of ['baseUrl', 'model'] as const) {
      if (!(field in merged)) {
        throw new ConfigError([
          {
            source: 'command line',
            field: FLAG_OF[field],
            message: `no transcription endpoint is set yet: give both --base-url and --model`,
          },
        ]);
      }
    }
    return { ...current, voice: merged };
  });
}

/**
 * Removes the config file's `voice` object. Resolves with whether there was one.
 *
 * @throws ConfigError when the file cannot be read as a config file.
 */
export function removeVoiceSettings(path: string): boolean {
  let had = false;
  rewriteConfigFile(path, (current) => {
    had = 'voice' in current;
    const { voice: _voice, ...rest } = current;
    return rest;
  });
  return had;
}
