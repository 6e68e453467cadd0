/**
 * `tether voice set`, `show` and `unset`: the speech-to-text endpoint the phone's
 * microphone button is transcribed by (docs/voice.md), in the config file, and its key in
 * the macOS Keychain (a 0600 file elsewhere), kept as the model key is.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  ensureDataDir,
  loadHostConfig,
  type HostConfig,
  modelSecrets,
  removeVoiceSettings,
  writeVoiceSettings,
} from '../config/index.js';
import { loadEndpointKey, removeEndpointKey, storeEndpointKey } from '../identity/index.js';
import { parseCommandArgs, UsageError } from '../../common/cli/index.js';
import type { HostCommandContext } from './host-command.js';
import { EndpointKey, readSecretInput } from './read-secret-input.js';

/** The usage text of `voice`, for `--help` and command-line errors. */
export const VOICE_USAGE = `Usage: tether voice set --base-url URL --model NAME [--language CODE] [--key-stdin]
                       [--data DIR | --config FILE]
       tether voice show [--data DIR | --config FILE]
       tether voice unset [--data DIR | --config FILE]

  set     the OpenAI-compatible speech-to-text endpoint (POST <URL>/audio/transcriptions)
          the phone's microphone button is transcribed by, in the config file
          (<data>/config.json, or --config); its other settings are kept. For example
            OpenAI:       --base-url https://api.openai.com/v1 --model whisper-1
            Groq:         --base-url https://api.groq.com/openai/v1 --model whisper-large-v3
            whisper.cpp:  --base-url http://127.0.0.1:8080/v1 --model whisper-1
          --language CODE  the language spoken (ISO 639-1: en, de, fr), else detected
          --key-stdin      keep the endpoint's API key in the macOS Keychain (elsewhere, or
                           with TETHER_KEY_STORE=file: <data>/voice-key.json, mode 0600),
                           read without echo on a terminal, else from stdin:
                           printf %s "$KEY" | tether voice set --key-stdin
  show    the endpoint, the model, the language and where the key is (never the key)
  unset   remove the endpoint from the config file and its stored key

The recordings go from the phone to this Mac over the encrypted channel, then to this
endpoint only, and are deleted once transcribed. Restart the host to use a change.
`;

const FLAGS = {
  data: { type: 'string' },
  config: { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  language: { type: 'string' },
  'key-stdin': { type: 'boolean' },
} as const;

/** `url` with its password and credential-like query values shown as `***`. */
function shownUrl(url: string): string {
  return modelSecrets({ baseUrl: url }, {}).reduce(
    (shown, secret) =>
      shown.replaceAll(encodeURIComponent(secret), '***').replaceAll(secret, '***'),
    url,
  );
}

/** Runs `tether voice …`; resolves with the exit code. */
export async function voiceCommand(
  argv: readonly string[],
  ctx: HostCommandContext,
): Promise<number> {
  const { values, positionals, help } = parseCommandArgs(argv, FLAGS, {
    required: ['<set|show|unset>'],
  });
  if (help) {
    ctx.out(VOICE_USAGE);
    return 0;
  }
  const action = positionals[0];
  if (action !== 'set' && action !== 'show' && action !== 'unset') {
    throw new UsageError(`unknown action ${action}: expected set, show or unset`);
  }
  const endpointFlags = ['base-url', 'model', 'language', 'key-stdin'] as const;
  if (action !== 'set' && endpointFlags.some((flag) => values[flag] !== undefined)) {
    throw new UsageError(`voice ${action} takes only --data or --config`);
  }
  const dataDir = ctx.dataDir(values.data);
  const config = loadHostConfig({
    argv: ['--data', dataDir, ...(values.config === undefined ? [] : ['--config', values.config])],
    env: process.env,
    cwd: process.cwd(),
    platform: process.platform,
    homedir: homedir(),
  });
  const path = values.config === undefined ? join(dataDir, 'config.json') : resolve(values.config);
  const keyOptions = {
    dataDir: config.dataDir,
    platform: process.platform,
    ...(config.keyStore === 'file' ? { keychain: null } : {}),
    signal: ctx.signal,
  };

  if (action === 'show') return showVoice(config, keyOptions, path, ctx);
  if (action === 'unset') return unsetVoice(config, keyOptions, ctx);
  return setVoice(values, { config, dataDir, path, keyOptions }, ctx);
}

type VoiceFlagValues = ReturnType<typeof parseCommandArgs<typeof FLAGS>>['values'];
/** Where the endpoint's key is kept. */
type KeyOptions = Parameters<typeof loadEndpointKey>[1];

/** `tether voice show`: the endpoint, the model, the language and where the key is. */
async function showVoice(
  config: HostConfig,
  keyOptions: KeyOptions,
  path: string,
  ctx: HostCommandContext,
): Promise<number> {
  const voice = config.voice;
  if (voice === null) {
    ctx.out('no transcription endpoint is set: the phone’s microphone button says so\n');
    ctx.out('set one with: tether voice set --base-url URL --model NAME [--key-stdin]\n');
    return 0;
  }
  const key = await loadEndpointKey('voice', keyOptions);
  ctx.out(`base URL  ${shownUrl(voice.baseUrl)}\n`);
  ctx.out(`model     ${voice.model}\n`);
  ctx.out(`language  ${voice.language ?? 'detected by the endpoint'}\n`);
  ctx.out(`key       ${key === null ? 'none stored' : `stored in ${key.where}`}\n`);
  ctx.out(`config    ${config.configFile ?? path}\n`);
  return 0;
}

/** `tether voice unset`: the endpoint out of the config file, its key out of its store. */
async function unsetVoice(
  config: HostConfig,
  keyOptions: KeyOptions,
  ctx: HostCommandContext,
): Promise<number> {
  const removed = config.configFile === null ? false : removeVoiceSettings(config.configFile);
  const keyRemoved = await removeEndpointKey('voice', keyOptions);
  ctx.out(
    removed
      ? `removed the transcription endpoint from ${config.configFile}\n`
      : 'no transcription endpoint was set\n',
  );
  if (keyRemoved) ctx.out('removed its stored key\n');
  ctx.out('a running host stops using it at its next start\n');
  return 0;
}

/** `tether voice set`: the flags given written to the config file, the key to its store. */
async function setVoice(
  values: VoiceFlagValues,
  target: { config: HostConfig; dataDir: string; path: string; keyOptions: KeyOptions },
  ctx: HostCommandContext,
): Promise<number> {
  const { config, dataDir, path, keyOptions } = target;
  const change = {
    ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'] }),
    ...(values.model === undefined ? {} : { model: values.model }),
    ...(values.language === undefined ? {} : { language: values.language }),
  };
  if (Object.keys(change).length === 0 && values['key-stdin'] !== true) {
    throw new UsageError(
      'say what to set: --base-url URL and --model NAME, --language CODE or --key-stdin',
    );
  }
  let key: string | undefined;
  if (values['key-stdin'] === true) {
    if (config.voice === null && (change.baseUrl === undefined || change.model === undefined)) {
      throw new UsageError('no transcription endpoint is set yet: give --base-url and --model too');
    }
    const input = await readSecretInput('Transcription API key (not shown): ', ctx.signal);
    const parsed = EndpointKey.safeParse(input ?? '');
    if (!parsed.success) {
      ctx.err(
        `tether voice set: ${parsed.error.issues[0]?.message ?? 'invalid key'}; nothing was stored\n`,
      );
      return 1;
    }
    key = parsed.data;
  }
  if (Object.keys(change).length > 0) {
    if (values.config === undefined) ensureDataDir(dataDir);
    writeVoiceSettings(path, change);
    ctx.out(`wrote the transcription endpoint to ${path}\n`);
  }
  if (key !== undefined) {
    ensureDataDir(config.dataDir);
    ctx.out(
      `stored the transcription key in ${await storeEndpointKey('voice', keyOptions, key)}\n`,
    );
  } else if (config.voice === null) {
    ctx.out('keep its API key with: tether voice set --key-stdin (if the endpoint needs one)\n');
  }
  ctx.out('a running host uses it from its next start\n');
  return 0;
}
