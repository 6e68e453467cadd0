/**
 * `tether models`: asks the configured model endpoint's `GET /models` and lists what it
 * offers, so a user picks a real name for TETHER_MODEL (or `tether model set --model`).
 */
import { homedir } from 'node:os';
import { checkModelFlags, loadHostConfig, modelSecrets } from '../config/index.js';
import { withStoredKeys } from '../identity/index.js';
import { Redactor } from '../log/index.js';
import { listModels } from '../model/index.js';
import { formatTable, parseCommandArgs, UsageError } from '../../common/cli/index.js';
import type { HostCommandContext } from './host-command.js';

/** The usage text of `models`, for `--help` and command-line errors. */
export const MODELS_USAGE = `Usage: tether models [--base-url URL] [--data DIR | --config FILE] [--json]

Lists the models the model endpoint offers (its GET /models). The endpoint and its key
are the host's: TETHER_MODEL_BASE_URL and TETHER_MODEL_API_KEY, else the config file,
else the key kept by tether model set-key.

Options:
  --base-url URL   ask this endpoint instead (its key still comes from the host's settings)
  --data DIR       data directory of the host (as for tether start)
  --config FILE    config file (as for tether start)
  --json           print {"baseUrl","models":[{"id","ownedBy"}]} as one line of JSON
`;

const FLAGS = {
  'base-url': { type: 'string' },
  data: { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** Runs `tether models`; resolves with the exit code. */
export async function modelsCommand(
  argv: readonly string[],
  ctx: HostCommandContext,
): Promise<number> {
  const { values, help } = parseCommandArgs(argv, FLAGS);
  if (help) {
    ctx.out(MODELS_USAGE);
    return 0;
  }
  if (values['base-url'] !== undefined) checkModelFlags({ baseUrl: values['base-url'] });
  const hostFlags = [
    ...(values.data === undefined ? [] : ['--data', values.data]),
    ...(values.config === undefined ? [] : ['--config', values.config]),
  ];
  const env = {
    ...process.env,
    ...(values['base-url'] === undefined ? {} : { TETHER_MODEL_BASE_URL: values['base-url'] }),
    // The host's settings want a model name; choosing one is what this command is for.
    TETHER_MODEL: process.env.TETHER_MODEL ?? 'any',
  };
  const loaded = loadHostConfig({
    argv: hostFlags,
    env,
    cwd: process.cwd(),
    platform: process.platform,
    homedir: homedir(),
  });
  const config = await withStoredKeys(loaded, process.platform);
  if (config.model === null) {
    throw new UsageError(
      'no model endpoint is configured: pass --base-url, set TETHER_MODEL_BASE_URL, or run tether model set',
    );
  }
  const { baseUrl, apiKey } = config.model;
  const secrets = new Redactor();
  for (const secret of modelSecrets(config.model, process.env)) secrets.register(secret);
  const result = await listModels(
    { baseUrl, secrets, ...(apiKey === undefined ? {} : { apiKey }) },
    ctx.signal,
  );
  if (result.type === 'failed') {
    ctx.err(`tether models: ${baseUrl} answered ${result.error.class}: ${result.error.message}\n`);
    return 1;
  }
  const { models } = result;
  if (values.json === true) {
    ctx.out(JSON.stringify({ baseUrl, models }) + '\n');
    return 0;
  }
  if (models.length === 0) {
    ctx.out(`${baseUrl} lists no models.\n`);
    return 0;
  }
  const rows = models.map((model) => [model.id, model.ownedBy ?? '-']);
  ctx.out(formatTable(['MODEL', 'OWNED BY'], rows) + '\n');
  ctx.out(`Use one with: tether model set --base-url ${baseUrl} --model <MODEL>\n`);
  return 0;
}
