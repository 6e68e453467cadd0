/**
 * The runtime as `tether start` builds it from the config: its model, Web Push
 * (`host-push.ts`), the command sandbox, the MCP servers, the agents, the policy and the
 * built-in tools, each made by its own folder.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { HostConfig } from '../config/index.js';
import type { Logger, Redactor } from '../log/index.js';
import { Agents } from '../agents/index.js';
import { McpServers, type ServerGroupRecord } from '../mcp/index.js';
import {
  createDemoModel,
  createModelAdapter,
  createTranscriber,
  DEMO_MODEL_NAME,
} from '../model/index.js';
import { createHostPolicy } from '../policy/index.js';
import { Runtime, type RuntimeModel } from '../runtime/index.js';
import type { Sandbox, SandboxStatus } from '../sandbox/index.js';
import type { Store } from '../store/index.js';
import { createHostTools, killProcessGroup } from '../tools/index.js';
import { VERSION } from '../version.js';
import { hostPush } from './host-push.js';
import type { HostSecrets } from './host-secrets.js';
import { hostRealPaths, machineSandbox } from './machine-sandbox.js';

export interface HostRuntime {
  runtime: Runtime;
  mcp: McpServers;
  sandbox: SandboxStatus;
}

function runtimeModel(config: HostConfig, secrets: Redactor): RuntimeModel | null {
  if (config.demo) {
    return { adapter: createDemoModel(), name: DEMO_MODEL_NAME, available: [DEMO_MODEL_NAME] };
  }
  const settings = config.model;
  if (settings === null) return null;
  const provider = settings.provider;
  const adapter = createModelAdapter({
    baseUrl: settings.baseUrl,
    idleTimeoutMs: config.limits.modelIdleTimeoutMs,
    secrets,
    ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }),
    ...(provider === undefined ? {} : { provider }),
    ...(settings.extraBody === undefined ? {} : { extraBody: settings.extraBody }),
  });
  return { adapter, name: settings.model, available: [settings.model] };
}

/**
 * Where the process groups of MCP servers and agents are recorded while the store can
 * commit: the MCP servers' start kills those a host that died left (both kinds).
 */
function groupRecord(store: Store, log: Logger): ServerGroupRecord {
  const recorded = (change: () => void) => {
    try {
      store.write(change);
    } catch (error) {
      log.error('cannot record a process group', { error: String(error) });
    }
  };
  return {
    list: () => store.mcpGroups.list(),
    add: (group) => recorded(() => store.mcpGroups.add(group)),
    remove: (pgid) => recorded(() => store.mcpGroups.remove(pgid)),
  };
}

/**
 * The MCP servers, each stdio one in `sandbox`, their process groups recorded in the store
 * while it can commit.
 */
function mcpServers(secrets: HostSecrets, store: Store, sandbox: Sandbox, log: Logger): McpServers {
  return new McpServers(secrets.mcpServers, {
    sandbox,
    log,
    version: VERSION,
    mask: (text) => secrets.redactor.foreignText(text),
    groups: groupRecord(store, log),
  });
}

/** The ACP agents (docs/agents.md), each run's agent started in `sandbox`. */
function hostAgents(secrets: HostSecrets, store: Store, sandbox: Sandbox, log: Logger): Agents {
  return new Agents(secrets.agents, {
    sandbox,
    log,
    mask: (text) => secrets.redactor.foreignText(text),
    groups: groupRecord(store, log),
  });
}

export function createHostRuntime(
  config: HostConfig,
  parts: { store: Store; secrets: HostSecrets; workspaces: Runtime['workspaces']; log: Logger },
): HostRuntime {
  const { store, secrets, workspaces, log } = parts;
  const push = hostPush(config, parts);
  const hostPaths = hostRealPaths(config);
  const sandbox = machineSandbox({
    policy: config.policy,
    home: homedir(),
    hostPaths,
    platform: process.platform,
    searchPath: process.env['PATH'] ?? '',
  });
  const mcp = mcpServers(secrets, store, sandbox, log.child({ component: 'mcp' }));
  const agents = hostAgents(secrets, store, sandbox, log.child({ component: 'agents' }));
  const policy = createHostPolicy({
    policy: config.policy,
    home: homedir(),
    sandbox: sandbox.status,
    hostPaths,
    toolSettings: mcp,
  });
  const runtime = new Runtime(
    store,
    {
      push,
      model: runtimeModel(config, secrets.redactor),
      workspaces,
      limits: {
        ...config.limits,
        ...(config.model?.contextTokens !== undefined && {
          contextTokens: config.model.contextTokens,
        }),
      },
      prices: config.prices,
      worktreesDir: join(config.dataDir, 'worktrees'),
      tools: createHostTools({ protectedPaths: policy.readProtection, sandbox }),
      toolServers: mcp,
      agents,
      policy: policy.decide,
      configAllowRules: config.policy.commands.allow,
      killProcessGroup: (pgid) => killProcessGroup(pgid, 2_000),
      transcriber:
        config.voice === null
          ? null
          : createTranscriber({ ...config.voice, secrets: secrets.redactor }),
    },
    (error) =>
      log.error('a run failed unexpectedly', {
        error: error instanceof Error ? error.stack : String(error),
      }),
  );
  return { runtime, mcp, sandbox: sandbox.status };
}

/** Recovers and starts the runtime, saying in the log what recovery found and each change of the store's health. */
export function startRuntime(runtime: Runtime, log: Logger): void {
  const report = runtime.start();
  if (report.interruptedRuns.length > 0) {
    log.warn('runs interrupted by the previous stop', { ...report });
  }
  // One line per transition, not one per refused commit.
  runtime.onPersistence((state) => {
    if (state.ok) log.info('commits work again: runs resume');
    else log.error('the store cannot commit: commands are refused until it can', { ...state });
  });
}
