/**
 * The `model` check of `tether doctor`: a model is configured, its endpoint answers
 * `GET /models` with the key, and it lists the configured model. Every failure names
 * where the value came from (the variable or the config file) and how to change it there.
 */
import { z } from 'zod';
import type { HostConfig } from '../config/index.js';
import { describeNetworkFailure, tetherCommand } from '../../common/cli/index.js';
import { fail, pass, type CheckResult } from './doctor-checks.js';

type Env = Readonly<Record<string, string | undefined>>;

/** How to configure a model: the config file and the Keychain, or the environment. */
const modelFix = () =>
  `${tetherCommand()} model set --base-url https://api.deepseek.com --model deepseek-v4-flash && ${tetherCommand()} model set-key (or export TETHER_MODEL_BASE_URL, TETHER_MODEL and TETHER_MODEL_API_KEY), then restart the host`;

const ModelList = z.looseObject({ data: z.array(z.looseObject({ id: z.string() })) });

/** Where a model setting came from, as the user would change it. */
interface Source {
  /** `TETHER_MODEL_BASE_URL`, `model.baseUrl in /path/config.json`, … */
  name: string;
  /** How to give it another value there. */
  change: string;
}

function sourceOf(
  config: HostConfig,
  env: Env,
  setting: { variable: string; field: string; flag: string; placeholder: string },
): Source {
  if (env[setting.variable] !== undefined) {
    return {
      name: setting.variable,
      change: `export ${setting.variable}=${setting.placeholder}, then restart the host`,
    };
  }
  const set = `${tetherCommand()} model set ${setting.flag} ${setting.placeholder} --data '${config.dataDir}'`;
  if (config.configFile !== null) {
    return { name: `${setting.field} in ${config.configFile}`, change: set };
  }
  return {
    name: `the endpoint the provider key in the environment picks`,
    change: set.replace(` --data '${config.dataDir}'`, ''),
  };
}

/** The model check: configured, the endpoint answers, the key is accepted, the model listed. */
export async function checkModel(
  config: HostConfig,
  signal: AbortSignal,
  env: Env = process.env,
  demoBeside?: string,
): Promise<CheckResult> {
  if (config.demo) return pass('model', 'the offline demo model (no endpoint)');
  const model = config.model;
  if (model === null && demoBeside !== undefined) {
    // Trying the demo is not a broken setup: real work needs a model, the demo does not.
    return {
      id: 'model',
      status: 'warn',
      detail: `no model configured; the demo host running for ${demoBeside} needs none`,
      fix: `for real work: ${modelFix()}`,
    };
  }
  if (model === null) return fail('model', 'no model configured', modelFix());
  const base = sourceOf(config, env, {
    variable: 'TETHER_MODEL_BASE_URL',
    field: 'model.baseUrl',
    flag: '--base-url',
    placeholder: 'URL',
  });
  const url = `${model.baseUrl.replace(/\/+$/, '')}/models`;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: model.apiKey === undefined ? {} : { authorization: `Bearer ${model.apiKey}` },
      signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]),
    });
  } catch (error) {
    return fail(
      'model',
      describeNetworkFailure(model.baseUrl, error, { server: 'the model server' }),
      `check ${base.name} (now ${model.baseUrl}): start the model server there, or ${base.change}`,
    );
  }
  const text = await response.text().catch(() => '');
  if (response.status === 401 || response.status === 403) {
    return fail(
      'model',
      `${model.baseUrl} refused the key (HTTP ${response.status})`,
      `${tetherCommand()} model set-key (or export TETHER_MODEL_API_KEY=<a valid key>), then restart the host`,
    );
  }
  // Some OpenAI-compatible servers do not list models: reaching them is enough.
  if (response.status === 404 || response.status === 405) {
    return pass('model', `${model.model} at ${model.baseUrl} (key accepted; it lists no models)`);
  }
  if (!response.ok) {
    return fail(
      'model',
      `${model.baseUrl} answered HTTP ${response.status} to GET /models`,
      `check ${base.name} (now ${model.baseUrl}): ${base.change}`,
    );
  }
  return listedCheck(config, env, model, text);
}

function listedCheck(
  config: HostConfig,
  env: Env,
  model: NonNullable<HostConfig['model']>,
  body: string,
): CheckResult {
  let ids: string[] = [];
  try {
    const listed = ModelList.safeParse(JSON.parse(body));
    if (listed.success) ids = listed.data.data.map((entry) => entry.id.replace(/^models\//, ''));
  } catch {
    // Not a list: the endpoint answered, which is what can be checked.
  }
  if (ids.length === 0 || ids.includes(model.model)) {
    return pass('model', `${model.model} at ${model.baseUrl} (key accepted)`);
  }
  const name = sourceOf(config, env, {
    variable: 'TETHER_MODEL',
    field: 'model.model',
    flag: '--model',
    placeholder: 'NAME',
  });
  const shown = ids.slice(0, 8).join(', ') + (ids.length > 8 ? `, … (${ids.length} in all)` : '');
  return fail(
    'model',
    `${model.baseUrl} does not offer ${model.model} (from ${name.name}); it lists ${shown}`,
    `${tetherCommand()} models lists them; then ${name.change}`,
  );
}
