/**
 * `tether start`: config, data directory, identity, store, recovery, runtime, HTTP, and a
 * graceful stop. The printed `listening on http://ADDR:PORT` line is a contract
 * (PROTOCOL.md section 9): harnesses wait for it.
 */
import { randomBytes } from 'node:crypto';
import { homedir, hostname } from 'node:os';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { serve, type ServerType } from '@hono/node-server';
import { ensureDataDir, loadHostConfig, redactedConfig, type HostConfig } from '../config/index.js';
import { loadOrCreateHostIdentity } from '../identity/index.js';
import { createLogger, type Logger } from '../log/index.js';
import { createModelAdapter, type ProviderKind } from '../model/index.js';
import { decidePolicy } from '../policy/index.js';
import { Runtime, type RuntimeModel } from '../runtime/index.js';
import {
  editFileTool,
  killProcessGroup,
  readOnlyTools,
  runCommandTool,
  writeFileTool,
  type ToolDefinition,
} from '../tools/index.js';
import { b64u } from '../../protocol/index.js';
import type { Identity } from '../../pairing/index.js';
import { ChannelServer, createHttpApp, removeAdminFile, writeAdminFile } from '../server/index.js';
import { Store } from '../store/index.js';
import { VERSION } from '../version.js';

export interface RunningHost {
  url: string;
  config: HostConfig;
  runtime: Runtime;
  /** Graceful stop: cancel active runs (bounded wait), record `host.stopping`, close. */
  stop(): Promise<void>;
}

const PROVIDERS = new Set<string>(['deepseek', 'openai', 'ollama', 'generic']);

function runtimeModel(config: HostConfig): RuntimeModel | null {
  const settings = config.model;
  if (settings === null) return null;
  const provider = settings.provider;
  const adapter = createModelAdapter({
    baseUrl: settings.baseUrl,
    idleTimeoutMs: config.limits.modelIdleTimeoutMs,
    ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }),
    ...(provider !== undefined && PROVIDERS.has(provider)
      ? { provider: provider as ProviderKind }
      : {}),
    ...(settings.extraBody === undefined ? {} : { extraBody: settings.extraBody }),
  });
  return { adapter, name: settings.model, available: [settings.model] };
}

/** The origin a pairing link names when the admin request gives none. */
function defaultOrigin(bind: string, port: number): string {
  if (bind === '0.0.0.0' || bind === '::')
    return `http://${hostname().replace(/\.local$/, '')}.local:${port}`;
  return `http://${bind.includes(':') ? `[${bind}]` : bind}:${port}`;
}

function listen(server: ServerType): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const address = server.address();
    if (address !== null && typeof address === 'object') return resolve(address);
    server.once('listening', () => resolve(server.address() as AddressInfo));
    server.once('error', reject);
  });
}

/** Starts the host. Throws ConfigError / StoreOpenError with a message for people. */
export async function startHost(
  argv: readonly string[],
  print: (line: string) => void,
): Promise<RunningHost> {
  const config = loadHostConfig({
    argv,
    env: process.env,
    cwd: process.cwd(),
    platform: process.platform,
    homedir: homedir(),
  });
  ensureDataDir(config.dataDir);
  const log: Logger = createLogger({ level: config.logLevel, dataDir: config.dataDir });
  if (config.model?.apiKey !== undefined) log.registerSecret(config.model.apiKey);
  const identity = await loadOrCreateHostIdentity({
    dataDir: config.dataDir,
    platform: process.platform,
    ...(config.keyStore === 'file' ? { keychain: null } : {}),
  });
  log.registerSecret(identity.hostSk.subarray(0, 32));
  for (const warning of config.warnings) log.warn(warning);
  log.info('starting', {
    version: VERSION,
    hostId: identity.hostId,
    config: redactedConfig(config),
  });

  const store = await Store.open({
    dataDir: config.dataDir,
    reportError: (error) => log.error('a commit listener failed', { error: String(error) }),
  });
  const runtime = new Runtime(
    store,
    {
      model: runtimeModel(config),
      workspaces: config.workspaces,
      limits: config.limits,
      tools: [
        ...readOnlyTools,
        writeFileTool,
        editFileTool,
        runCommandTool,
      ] as ToolDefinition<unknown>[],
      policy: (call, workspace) =>
        decidePolicy(call, { workspace, policy: config.policy, homedir: homedir() }),
      killProcessGroup: (pgid) => killProcessGroup(pgid, 2_000),
    },
    (error) =>
      log.error('a run failed unexpectedly', {
        error: error instanceof Error ? error.stack : String(error),
      }),
  );
  const report = runtime.start();
  if (report.interruptedRuns.length > 0) {
    log.warn('runs interrupted by the previous stop', { ...report });
  }

  const hostIdentity: Identity = {
    id: identity.hostId,
    publicKey: identity.hostPk,
    secretKey: identity.hostSk,
  };
  const channel = new ChannelServer({
    runtime,
    identity: hostIdentity,
    hostName: config.hostName,
    version: VERSION,
    log: log.child({ component: 'channel' }),
  });
  const adminToken = b64u(randomBytes(32));
  log.registerSecret(adminToken);
  let port = config.port;
  const app = createHttpApp({
    hostId: identity.hostId,
    version: VERSION,
    admin: {
      runtime,
      identity: hostIdentity,
      token: adminToken,
      port: () => port,
      defaultOrigin: () => defaultOrigin(config.bind, port),
      closeDeviceSockets: (deviceId) => channel.closeDevice(deviceId),
    },
  });
  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.bind });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) =>
    channel.handleUpgrade(request, socket, head),
  );
  let address: AddressInfo;
  try {
    address = await listen(server);
  } catch (error) {
    channel.close();
    store.close();
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') {
      throw new Error(
        `port ${config.port} on ${config.bind} is already in use: stop the other program or pass --port`,
        { cause: error },
      );
    }
    throw error;
  }
  port = address.port;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  // Local commands reach the admin API on loopback, whatever address the host binds.
  const wildcard = config.bind === '0.0.0.0' || config.bind === '::';
  const adminUrl = wildcard ? `http://127.0.0.1:${address.port}` : url;
  writeAdminFile(config.dataDir, {
    url: adminUrl,
    token: adminToken,
    pid: process.pid,
    instance: runtime.instance,
  });

  print(`Tether ${VERSION} · host ${config.hostName} (${identity.hostId})`);
  print(`data: ${config.dataDir}`);
  print(`workspaces: ${config.workspaces.map((workspace) => workspace.path).join(', ')}`);
  print(
    runtime.model === null
      ? 'model: none configured; runs will fail until you set TETHER_MODEL_BASE_URL, TETHER_MODEL and TETHER_MODEL_API_KEY (or DEEPSEEK_API_KEY / OPENAI_API_KEY with TETHER_MODEL)'
      : `model: ${runtime.model.name} at ${config.model?.baseUrl ?? ''}`,
  );
  print(`admin page: http://127.0.0.1:${port}/admin#token=${adminToken}`);
  print(`listening on ${url}`);
  log.info('listening', { url });

  let stopping: Promise<void> | null = null;
  return {
    url,
    config,
    runtime,
    stop() {
      stopping ??= (async () => {
        log.info('stopping');
        await runtime.stop(10_000);
        channel.close();
        removeAdminFile(config.dataDir);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          if ('closeAllConnections' in server) server.closeAllConnections();
        });
        store.close();
        log.info('stopped');
        log.close();
      })();
      return stopping;
    },
  };
}
