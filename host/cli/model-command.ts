/**
 * `tether model set` and `tether model set-key`: the model endpoint in the config file,
 * its key in the macOS Keychain (a 0600 file elsewhere), so that a host started as a
 * service needs no variable in its environment.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureDataDir, loadHostConfig, writeModelSettings } from '../config/index.js';
import { storeEndpointKey } from '../identity/index.js';
import { parseCommandArgs, UsageError } from '../../common/cli/index.js';
import type { HostCommandContext } from './host-command.js';
import { EndpointKey, readSecretInput } from './read-secret-input.js';

/** The usage text of `model`, for `--help` and command-line errors. */
export const MODEL_USAGE = `Usage: tether model set --base-url URL --model NAME [--provider NAME] [--data DIR | --config FILE]
       tether model set-key [--data DIR]

  set       write the model endpoint to the config file (<data>/config.json, or --config);
            its other settings are kept
  set-key   keep the model's API key in the macOS Keychain (elsewhere, or with
            TETHER_KEY_STORE=file: <data>/model-key.json, mode 0600). It is read without
            echo on a terminal, else from stdin: printf %s "$KEY" | tether model set-key

The host reads the key at start; TETHER_MODEL_API_KEY (and the config's model.apiKeyEnv)
still win when set. Restart the host (tether service install) to use a new key.
`;

const FLAGS = {
  data: { type: 'string' },
  config: { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  provider: { type: 'string' },
} as const;

/** Runs `tether model …`; resolves with the exit code. */
export async function modelCommand(
  argv: readonly string[],
  ctx: HostCommandContext,
): Promise<number> {
  const { values, positionals, help } = parseCommandArgs(argv, FLAGS, {
    required: ['<set|set-key>'],
  });
  if (help) {
    ctx.out(MODEL_USAGE);
    return 0;
  }
  const dataDir = ctx.dataDir(values.data);
  switch (positionals[0]) {
    case 'set': {
      const change = {
        ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'] }),
        ...(values.model === undefined ? {} : { model: values.model }),
        ...(values.provider === undefined ? {} : { provider: values.provider }),
      };
      if (Object.keys(change).length === 0) {
        throw new UsageError('say what to set: --base-url URL, --model NAME or --provider NAME');
      }
      let path: string;
      if (values.config === undefined) {
        ensureDataDir(dataDir);
        path = join(dataDir, 'config.json');
      } else {
        path = resolve(values.config);
      }
      writeModelSettings(path, change);
      ctx.out(`wrote the model settings to ${path}\n`);
      ctx.out('keep its API key with: tether model set-key (if the endpoint needs one)\n');
      return 0;
    }
    case 'set-key': {
      if (values.config !== undefined || values['base-url'] !== undefined) {
        throw new UsageError('set-key takes only --data; the key is read from stdin');
      }
      const config = loadHostConfig({
        argv: ['--data', dataDir],
        env: process.env,
        cwd: process.cwd(),
        platform: process.platform,
        homedir: homedir(),
      });
      const input = await readSecretInput('Model API key (not shown): ', ctx.signal);
      const key = EndpointKey.safeParse(input ?? '');
      if (!key.success) {
        ctx.err(
          `tether model set-key: ${key.error.issues[0]?.message ?? 'invalid key'}; nothing was stored\n`,
        );
        return 1;
      }
      ensureDataDir(config.dataDir);
      const where = await storeEndpointKey(
        'model',
        {
          dataDir: config.dataDir,
          platform: process.platform,
          ...(config.keyStore === 'file' ? { keychain: null } : {}),
          signal: ctx.signal,
        },
        key.data,
      );
      ctx.out(`stored the model key in ${where}\n`);
      if (config.model === null) {
        ctx.out('name the endpoint with: tether model set --base-url URL --model NAME\n');
      }
      ctx.out('a running host reads it at its next start\n');
      return 0;
    }
    default:
      throw new UsageError(`unknown action ${positionals[0]}: expected set or set-key`);
  }
}
