/**
 * Every secret a starting host holds, read once and registered before anything is written:
 * the model's keys (then forgotten from the environment), the transcription endpoint's, the MCP servers' secrets, the
 * host's identity and push keys, and the admin token. One Redactor masks them in event
 * payloads, run errors and model errors; the logger keeps its own copy.
 */
import { randomBytes } from 'node:crypto';
import { ConfigError, forgetModelKeys, modelSecrets, type HostConfig } from '../config/index.js';
import {
  loadOrCreateHostIdentity,
  loadOrCreatePushKeys,
  readKeychainItem,
  readPrivateFile,
  type PushKeys,
} from '../identity/index.js';
import { Redactor, type Logger } from '../log/index.js';
import { AgentSettingsError, resolveAgents, type AgentSpec } from '../agents/index.js';
import { McpSettingsError, resolveMcpServers, type ResolveOptions } from '../mcp/index.js';
import { b64u } from '../../protocol/index.js';
import type { Identity } from '../../pairing/index.js';

export interface HostSecrets {
  redactor: Redactor;
  identity: Identity;
  pushKeys: PushKeys;
  /** The MCP servers with their secrets read. */
  mcpServers: Awaited<ReturnType<typeof resolveMcpServers>>['servers'];
  /** The ACP agents with their secrets read (docs/agents.md). */
  agents: AgentSpec[];
  /** The admin API's bearer token, new at each start. */
  adminToken: string;
}

/** Reads every secret; one that cannot be read stops the start (a ConfigError for MCP's). */
export async function gatherSecrets(config: HostConfig, log: Logger): Promise<HostSecrets> {
  const redactor = new Redactor();
  const keep = (secret: string | Uint8Array): void => {
    redactor.register(secret);
    log.registerSecret(secret);
  };
  const modelKeys = modelSecrets(config.model, process.env);
  for (const secret of modelKeys) keep(secret);
  // Read once: from here on no child (an approved command) can find it in our environment.
  forgetModelKeys(process.env, modelKeys);
  for (const secret of modelSecrets(config.voice, {})) keep(secret);
  const reading: ResolveOptions = {
    env: process.env,
    readFile: (path) =>
      readPrivateFile(
        path,
        (problem, cause) => new Error(`the secret file ${path} ${problem}`, { cause }),
        (mode) => `has mode ${mode}; make it private: chmod 600 ${path}`,
      ),
    readKeychain:
      process.platform === 'darwin'
        ? (service, account) => readKeychainItem(service, account)
        : null,
  };
  const settingsError = (error: unknown): never => {
    if (!(error instanceof McpSettingsError || error instanceof AgentSettingsError)) throw error;
    const source = config.configFile === null ? 'config file' : `config file ${config.configFile}`;
    throw new ConfigError(error.issues.map((issue) => ({ source, ...issue })));
  };
  const mcp = await resolveMcpServers(config.mcp, reading).catch(settingsError);
  for (const secret of mcp.secrets) keep(secret);
  const agents = await resolveAgents(config.agents, reading).catch(settingsError);
  for (const secret of agents.secrets) keep(secret);
  const keyOptions = {
    dataDir: config.dataDir,
    platform: process.platform,
    ...(config.keyStore === 'file' ? { keychain: null } : {}),
  };
  const host = await loadOrCreateHostIdentity(keyOptions);
  keep(host.hostSk.subarray(0, 32));
  const pushKeys = await loadOrCreatePushKeys(keyOptions);
  keep(pushKeys.privateKey);
  const adminToken = b64u(randomBytes(32));
  keep(adminToken);
  return {
    redactor,
    identity: { id: host.hostId, publicKey: host.hostPk, secretKey: host.hostSk },
    pushKeys,
    mcpServers: mcp.servers,
    agents: agents.agents,
    adminToken,
  };
}
