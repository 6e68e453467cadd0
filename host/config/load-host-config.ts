/**
 * Building the host's configuration from defaults, the config file, the environment and
 * the command line.
 */
import { dirname, join, resolve } from 'node:path';
import { PolicyConfig } from '../policy/index.js';
import { ConfigError } from './config-error.js';
import { readConfigFile } from './config-file.js';
import {
  DEFAULT_BIND,
  DEFAULT_LIMITS,
  DEFAULT_PORT,
  DEFAULT_PUSH,
  defaultHostName,
  resolveDataDir,
} from './defaults.js';
import { parseFlags } from './flags.js';
import { resolveModelSettings } from './model-settings.js';
import { EnvSettings, FlagSettings, parseSource } from './schema.js';
import type { ConfigIssue, HostConfig, LoadHostConfigOptions } from './types.js';
import { resolveWorkspaces } from './workspaces.js';
import type { WorkspaceEntry } from './workspaces.js';

/**
 * Reads every source, later winning: defaults < config file < environment < flags.
 * The data directory comes from `--data`, TETHER_DATA_DIR or the platform default (the
 * config file lives inside it, so it cannot name it). The config file is `--config FILE`
 * if given, else `<dataDir>/config.json` if present. Workspaces from the file and the
 * flags are all used; with none, the cwd is the one workspace (with `--demo`, none: the
 * host makes a sample one). `--demo` without `--data` uses `<dataDir>/demo`. Creates nothing.
 *
 * @throws ConfigError listing every problem found.
 */
export function loadHostConfig(options: LoadHostConfigOptions): HostConfig {
  const { cwd } = options;
  const issues: ConfigIssue[] = [];
  const warnings: string[] = [];

  const flags =
    parseSource(FlagSettings, parseFlags(options.argv, issues), 'command line', issues) ?? {};
  const setEnv = Object.fromEntries(
    Object.entries(options.env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const env = parseSource(EnvSettings, setEnv, 'environment', issues) ?? {};

  const demo = flags['--demo'] !== undefined;
  // The demo never touches the real data: it keeps its own folder unless told otherwise.
  const dataDir =
    demo && flags['--data'] === undefined
      ? join(resolveDataDir(undefined, options), 'demo')
      : resolveDataDir(flags['--data'], options);
  const explicitFile = flags['--config'];
  const file = readConfigFile(
    explicitFile === undefined ? join(dataDir, 'config.json') : resolve(cwd, explicitFile),
    explicitFile !== undefined,
    issues,
  );
  const fromFile = file?.settings ?? {};

  const workspaceEntries: WorkspaceEntry[] = [
    ...(fromFile.workspaces ?? []).map((entry, i) => ({
      path: resolve(dirname(file?.path ?? cwd), entry.path),
      source: file?.source ?? 'config file',
      field: `workspaces[${i}]`,
      ...(entry.isolation === 'worktree' ? { isolation: 'worktree' as const } : {}),
    })),
    ...(flags['--workspace'] ?? []).map((path) => ({
      path: resolve(cwd, path),
      source: 'command line',
      field: '--workspace',
    })),
  ];
  if (workspaceEntries.length === 0 && !demo) {
    workspaceEntries.push({ path: cwd, source: 'defaults', field: 'workspace (the cwd)' });
  }
  const workspaces = resolveWorkspaces(workspaceEntries, issues);

  const model = resolveModelSettings({
    file:
      file && fromFile.model
        ? { source: file.source, model: fromFile.model, isPrivate: file.isPrivate }
        : null,
    env,
    rawEnv: options.env,
    issues,
    warnings,
  });

  if (demo && model !== null) {
    warnings.push(`--demo: the configured model ${model.model} at ${model.baseUrl} is not used`);
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return {
    dataDir,
    configFile: file?.path ?? null,
    port: flags['--port'] ?? env.TETHER_PORT ?? fromFile.port ?? DEFAULT_PORT,
    bind: flags['--bind'] ?? env.TETHER_BIND ?? fromFile.bind ?? DEFAULT_BIND,
    hostName: env.TETHER_HOST_NAME ?? fromFile.hostName ?? defaultHostName(),
    workspaces,
    model: demo ? null : model,
    voice: fromFile.voice ?? null,
    https: flags['--https'] !== undefined,
    tailscale: flags['--tailscale'] !== undefined,
    demo,
    limits: { ...DEFAULT_LIMITS, ...fromFile.limits },
    policy: fromFile.policy ?? PolicyConfig.parse({}),
    mcp: fromFile.mcp ?? {},
    agents: fromFile.agents ?? {},
    logLevel: env.TETHER_LOG_LEVEL ?? fromFile.logLevel ?? 'info',
    keyStore:
      env.TETHER_KEY_STORE ??
      fromFile.keyStore ??
      (options.platform === 'darwin' ? 'keychain' : 'file'),
    push: {
      ...DEFAULT_PUSH,
      ...(fromFile.push?.subject === undefined ? {} : { subject: fromFile.push.subject }),
      ...(fromFile.push?.allowedEndpoints === undefined
        ? {}
        : { allowedEndpoints: fromFile.push.allowedEndpoints }),
      ...(fromFile.push?.body === undefined ? {} : { body: fromFile.push.body }),
      ...fromFile.push?.retry,
    },
    keepAwake: fromFile.power?.keepAwake ?? 'runs',
    prices: fromFile.prices ?? {},
    warnings,
  };
}
