/**
 * `tether start`: config, data directory, identity, store, recovery, runtime, HTTP, and a
 * graceful stop. The printed `listening on http://ADDR:PORT` line is a contract
 * (docs/protocol.md §9): harnesses wait for it.
 */
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  ConfigError,
  ensureDataDir,
  forgetModelKeys,
  loadHostConfig,
  modelSecrets,
  redactedConfig,
  type HostConfig,
} from '../config/index.js';
import { armFaultPoints } from '../faults/index.js';
import {
  loadOrCreateHostIdentity,
  loadOrCreatePushKeys,
  readKeychainItem,
  readPrivateFile,
  withStoredModelKey,
} from '../identity/index.js';
import {
  createLogger,
  Redactor,
  type LogFields,
  type Logger,
  type LogRotation,
} from '../log/index.js';
import { createDemoModel, createModelAdapter, DEMO_MODEL_NAME } from '../model/index.js';
import { McpServers, McpSettingsError, resolveMcpServers } from '../mcp/index.js';
import { compileReadProtection, decidePolicy } from '../policy/index.js';
import { keepAwake, watchForWake } from '../power/index.js';
import { PushDispatcher } from '../push/index.js';
import { Runtime, type RuntimeModel } from '../runtime/index.js';
import {
  createSearchTools,
  editFileTool,
  killProcessGroup,
  readOnlyTools,
  createRunCommandTool,
  writeFileTool,
  type ToolDefinition,
} from '../tools/index.js';
import { b64u, setEnglishIssueMessages } from '../../protocol/index.js';
import type { Identity } from '../../pairing/index.js';
import { nativeChannelCrypto } from '../../pairing/node/index.js';
import {
  ChannelServer,
  createHttpApp,
  DEFAULT_HTTP_LIMITS,
  defaultAppDir,
  DownloadLinks,
  guardConnections,
  httpRequestListener,
  httpServerOptions,
  removeAdminFile,
  writeAdminFile,
  type ChannelLimits,
  type HttpLimits,
} from '../server/index.js';
import { describeRewind, lockDataDir, Store, type HistoryRewind } from '../store/index.js';
import { publishHost, unpublishHost, type TailnetPublication } from '../tailscale/index.js';
import { loadOrCreateLocalTls, serverNames, type LocalTls } from '../tls/index.js';
import { ensureDemoWorkspace } from './demo-workspace.js';
import { takeLogFormat, terminalLogSink } from './terminal-log.js';
import { VERSION } from '../version.js';
import { hostRealPaths, machineSandbox } from './machine-sandbox.js';
import { defaultOrigin, printStartBanner } from './start-banner.js';
import { tetherCommand } from '../../common/cli/index.js';
import { lanHostName, LocalNameCheck } from './lan-origin.js';

export interface RunningHost {
  url: string;
  config: HostConfig;
  runtime: Runtime;
  /** The store this start opened (tests and benchmarks commit to it and read it directly). */
  store: Store;
  /** Graceful stop: cancel active runs (bounded wait), record `host.stopping`, close. */
  stop(): Promise<void>;
}

/** What a caller embedding the host may set besides the command line (tests). */
export interface StartHostOptions {
  /** The built PWA's folder (default: dist/app beside the compiled host). */
  appDir?: string;
  /** Bounds of the channel (tests pass short ones). */
  channelLimits?: Partial<ChannelLimits>;
  /** Bounds of the HTTP server before an upgrade. */
  httpLimits?: Partial<HttpLimits>;
  /** When `host.log` is rotated. */
  logRotation?: Partial<LogRotation>;
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

function listen(server: Server): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const address = server.address();
    if (address !== null && typeof address === 'object') return resolve(address);
    server.once('listening', () => resolve(server.address() as AddressInfo));
    server.once('error', reject);
  });
}

/** Starts the host. Throws ConfigError / StoreOpenError with a message for people. */
/** A rewind's facts for the log, with the command that acknowledges it. */
function rewindFields(rewind: HistoryRewind): LogFields {
  return { ...rewind, acknowledge: `${tetherCommand()} history --acknowledge` };
}

/**
 * Says again, at each start, a rewind found at an earlier one and not yet acknowledged, and
 * a history mark that could not be read.
 */
function logEarlierRewind(store: Store, log: Logger): void {
  const { history } = store;
  if (history.markProblem !== null) {
    log.warn('history mark unreadable: written afresh', { problem: history.markProblem });
  }
  const earlier = history.unacknowledged.at(-1);
  if (earlier === undefined || history.foundAtOpen !== null) return;
  const when = new Date(earlier.detectedAt).toISOString();
  log.warn(
    `${describeRewind(earlier)} (found ${when}, not yet acknowledged)`,
    rewindFields(earlier),
  );
}

export async function startHost(
  argv: readonly string[],
  print: (line: string) => void,
  options: StartHostOptions = {},
): Promise<RunningHost> {
  // The messages of the issues the host sends (an in-process host has no main()).
  setEnglishIssueMessages();
  const faults = armFaultPoints(process.env);
  const logFormat = takeLogFormat(argv);
  const config = loadHostConfig({
    argv: logFormat.argv,
    env: process.env,
    cwd: process.cwd(),
    platform: process.platform,
    homedir: homedir(),
  });
  const { created } = ensureDataDir(config.dataDir);
  const lock = lockDataDir(config.dataDir);
  try {
    const host = await startLocked(
      { config, faults, dataDirCreated: created, logFormat: logFormat.format },
      print,
      options,
    );
    return { ...host, stop: () => host.stop().finally(() => lock.release()) };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** The rest of the start, once this process holds the data directory. */
async function startLocked(
  start: {
    config: HostConfig;
    faults: ReturnType<typeof armFaultPoints>;
    dataDirCreated: boolean;
    logFormat: Parameters<typeof terminalLogSink>[0];
  },
  print: (line: string) => void,
  options: StartHostOptions,
): Promise<RunningHost> {
  const { faults } = start;
  const config = await withStoredModelKey(start.config, process.platform);
  const workspaces =
    config.demo && config.workspaces.length === 0
      ? [ensureDemoWorkspace(config.dataDir)]
      : config.workspaces;
  const log: Logger = createLogger({
    level: config.logLevel,
    dataDir: config.dataDir,
    sink: terminalLogSink(start.logFormat),
    ...(options.logRotation === undefined ? {} : { rotation: options.logRotation }),
  });
  // One set of secrets for everything the host writes or sends: log lines (the logger keeps
  // its own copy), event payloads and run errors (the store), model errors (the adapter).
  const secrets = new Redactor();
  const keepSecret = (secret: string | Uint8Array): void => {
    secrets.register(secret);
    log.registerSecret(secret);
  };
  const modelKeys = modelSecrets(config.model, process.env);
  for (const secret of modelKeys) keepSecret(secret);
  // Read once: from here on no child (an approved command) can find it in our environment.
  forgetModelKeys(process.env, modelKeys);
  // Read before anything is written: a secret that cannot be read stops the start.
  const mcpServers = await resolveMcpServers(config.mcp, {
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
  }).catch((error: unknown) => {
    if (!(error instanceof McpSettingsError)) throw error;
    const source = config.configFile === null ? 'config file' : `config file ${config.configFile}`;
    throw new ConfigError(error.issues.map((issue) => ({ source, ...issue })));
  });
  for (const secret of mcpServers.secrets) keepSecret(secret);
  const identity = await loadOrCreateHostIdentity({
    dataDir: config.dataDir,
    platform: process.platform,
    ...(config.keyStore === 'file' ? { keychain: null } : {}),
  });
  keepSecret(identity.hostSk.subarray(0, 32));
  const pushKeys = await loadOrCreatePushKeys({
    dataDir: config.dataDir,
    platform: process.platform,
    ...(config.keyStore === 'file' ? { keychain: null } : {}),
  });
  keepSecret(pushKeys.privateKey);
  for (const warning of config.warnings) log.warn(warning);
  if (faults !== null) log.warn('fault point armed: the host kills itself there', { ...faults });
  log.info('starting', {
    version: VERSION,
    hostId: identity.hostId,
    config: redactedConfig(config),
  });

  const pageLimitFile = process.env['TETHER_FAULT_DB_MAX_PAGES'];
  const store = await Store.open({
    dataDir: config.dataDir,
    reportError: (error) => log.error('a commit listener failed', { error: String(error) }),
    secrets,
    // Said when found; host.info.history says it until acknowledged.
    onHistoryRewound: (rewind) => log.warn(describeRewind(rewind), rewindFields(rewind)),
    ...(process.env['TETHER_FAULTS'] === '1' && pageLimitFile ? { pageLimitFile } : {}),
  });
  logEarlierRewind(store, log);
  const pushLog = log.child({ component: 'push' });
  const push = new PushDispatcher(store, {
    host: {
      hostId: identity.hostId,
      hostName: config.hostName,
      workspaceName: (path) =>
        workspaces.find((workspace) => workspace.path === path)?.name ??
        path.split('/').filter(Boolean).at(-1) ??
        path,
    },
    keys: pushKeys,
    settings: config.push,
    log: (level, message, fields) => pushLog[level](message, fields),
  });
  const hostPaths = hostRealPaths(config);
  const sandbox = machineSandbox({
    policy: config.policy,
    home: homedir(),
    hostPaths,
    platform: process.platform,
    searchPath: process.env['PATH'] ?? '',
  });
  const sandboxStatus = sandbox.status;
  const mcpLog = log.child({ component: 'mcp' });
  const recorded = (change: () => void) => {
    try {
      store.write(change);
    } catch (error) {
      mcpLog.error('cannot record an MCP server process group', { error: String(error) });
    }
  };
  const mcp = new McpServers(mcpServers.servers, {
    log: mcpLog,
    version: VERSION,
    mask: (text) => secrets.foreignText(text),
    groups: {
      list: () => store.mcpGroups.list(),
      add: (group) => recorded(() => store.mcpGroups.add(group)),
      remove: (pgid) => recorded(() => store.mcpGroups.remove(pgid)),
    },
  });
  const runtime = new Runtime(
    store,
    {
      push,
      model: runtimeModel(config, secrets),
      workspaces,
      limits: {
        ...config.limits,
        ...(config.model?.contextTokens !== undefined && {
          contextTokens: config.model.contextTokens,
        }),
      },
      prices: config.prices,
      worktreesDir: join(config.dataDir, 'worktrees'),
      tools: [
        ...readOnlyTools,
        ...createSearchTools({
          protectedPaths: (workspace) =>
            compileReadProtection(config.policy.protectedPaths, workspace, homedir(), {
              hostPaths,
              allowSecretPaths: config.policy.allowSecretPaths,
            }),
        }),
        writeFileTool,
        editFileTool,
        createRunCommandTool({ sandbox }),
      ] as ToolDefinition<unknown>[],
      toolServers: mcp,
      policy: (call, workspace, addedRules, scope) => {
        const decided = mcp.decide(call.name);
        if (decided !== null) return Promise.resolve(decided);
        return decidePolicy(call, {
          workspace,
          worktree: scope?.worktree === true,
          policy: config.policy,
          homedir: homedir(),
          sandbox: sandboxStatus,
          hostPaths,
          addedRules,
        });
      },
      configAllowRules: config.policy.commands.allow,
      killProcessGroup: (pgid) => killProcessGroup(pgid, 2_000),
    },
    (error) =>
      log.error('a run failed unexpectedly', {
        error: error instanceof Error ? error.stack : String(error),
      }),
  );
  const hostIdentity: Identity = {
    id: identity.hostId,
    publicKey: identity.hostPk,
    secretKey: identity.hostSk,
  };
  const downloads = new DownloadLinks({ runtime, identity: hostIdentity });
  const native = nativeChannelCrypto();
  if (native.sodiumError !== undefined) {
    log.warn('libsodium did not load: handshakes use OpenSSL, frames a slower pure-JS cipher', {
      error: native.sodiumError,
    });
  }
  const channel = new ChannelServer({
    runtime,
    identity: hostIdentity,
    crypto: native.crypto,
    hostName: config.hostName,
    version: VERSION,
    log: log.child({ component: 'channel' }),
    downloads,
    ...(options.channelLimits === undefined ? {} : { limits: options.channelLimits }),
  });
  let tls: LocalTls | null = null;
  if (config.https) {
    tls = loadOrCreateLocalTls({
      dataDir: config.dataDir,
      names: serverNames(),
      hostName: config.hostName,
    });
    log.info('local CA ready', {
      names: tls.names,
      caCreated: tls.caCreated,
      serverIssued: tls.serverIssued,
    });
  }
  const adminToken = b64u(randomBytes(32));
  keepSecret(adminToken);
  let port = config.port;
  let tailnet: TailnetPublication | null = null;
  // Links name the .local name only where it resolves here (asked now, again at each offer).
  const localName = new LocalNameCheck();
  localName.refresh();
  const app = createHttpApp({
    hostId: identity.hostId,
    version: VERSION,
    admin: {
      runtime,
      identity: hostIdentity,
      token: adminToken,
      port: () => port,
      defaultOrigin: () => {
        if (tailnet !== null) return tailnet.origin;
        localName.refresh();
        return defaultOrigin(config.bind, port, tls !== null, lanHostName(localName));
      },
      closeDeviceSockets: (deviceId) => channel.closeDevice(deviceId),
    },
    appDir: options.appDir ?? defaultAppDir(),
    downloads,
    log: log.child({ component: 'http' }),
    ...(tls === null ? {} : { localCa: { pem: tls.caPem, mobileconfig: tls.mobileconfig } }),
  });
  const httpLimits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...options.httpLimits };
  const onRequest = httpRequestListener(app.fetch, {
    hostname: config.bind,
    log: log.child({ component: 'http' }),
  });
  const server =
    tls === null
      ? createHttpServer(httpServerOptions(httpLimits), onRequest)
      : createHttpsServer(
          { ...httpServerOptions(httpLimits), key: tls.key, cert: tls.cert },
          onRequest,
        );
  server.listen(config.port, config.bind);
  const stopGuard = guardConnections(
    server,
    httpLimits,
    log.child({ component: 'http' }),
    options.channelLimits?.refusalLogIntervalMs,
  );
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
  const local = { bind: config.bind, port: address.port, tls: tls !== null };
  // Recovery writes; only a host that got its port (and its tailnet origin) may change the
  // data directory.
  let report: ReturnType<Runtime['start']>;
  try {
    if (config.tailscale) {
      tailnet = await publishHost(local, {
        flag: '--tailscale',
        next: `start the host again (${tetherCommand()} start --tailscale, or ${tetherCommand()} service restart for the service)`,
      });
      log.info('published on the tailnet', { ...tailnet });
    }
    report = runtime.start();
  } catch (error) {
    channel.close();
    server.close();
    store.close();
    throw error;
  }
  // Servers a dead host left are killed before new ones start; connecting goes on behind.
  await mcp.start();
  if (report.interruptedRuns.length > 0) {
    log.warn('runs interrupted by the previous stop', { ...report });
  }
  // One line per transition, not one per refused commit.
  runtime.onPersistence((state) => {
    if (state.ok) log.info('commits work again: runs resume');
    else log.error('the store cannot commit: commands are refused until it can', { ...state });
  });
  const powerLog = log.child({ component: 'power' });
  const power = keepAwake({
    runtime,
    policy: config.keepAwake,
    platform: process.platform,
    log: powerLog,
  });
  // Remotes learn of a wake by reconnecting; the log says how long the machine slept.
  const stopWakeWatch = watchForWake((asleepMs) => {
    powerLog.warn('the machine slept: a timer fired late', { asleepMs });
    power.check();
  });
  port = address.port;
  const scheme = tls === null ? 'http' : 'https';
  const wildcard = config.bind === '0.0.0.0' || config.bind === '::';
  // Bound to every address, the host is reached on loopback here and on the LAN addresses
  // (printed after the listening line): never name 0.0.0.0, which no browser opens.
  const host = wildcard
    ? '127.0.0.1'
    : address.family === 'IPv6'
      ? `[${address.address}]`
      : address.address;
  // Local commands reach the admin API on this same URL.
  const url = `${scheme}://${host}:${address.port}`;
  writeAdminFile(config.dataDir, {
    url,
    token: adminToken,
    pid: process.pid,
    instance: runtime.instance,
    ...(tls === null ? {} : { ca: tls.caPem }),
    ...(tailnet === null ? {} : { tailnetOrigin: tailnet.origin }),
  });

  printStartBanner(print, log, {
    config,
    hostId: identity.hostId,
    dataDirCreated: start.dataDirCreated,
    workspaces,
    modelName: runtime.model?.name ?? null,
    tls,
    port: address.port,
    adminToken,
    url,
    sandbox: sandboxStatus,
    tailnet,
    lanName: lanHostName(localName),
  });
  log.info('listening', { url, bind: config.bind });

  let stopping: Promise<void> | null = null;
  return {
    url,
    config,
    runtime,
    store,
    stop() {
      stopping ??= (async () => {
        log.info('stopping');
        if (tailnet !== null) {
          const problem = await unpublishHost(tailnet, local);
          if (problem === null) log.info('tailscale serve removed', { origin: tailnet.origin });
          else log.warn('tailscale serve was not removed', { origin: tailnet.origin, problem });
        }
        await runtime.stop(10_000);
        await mcp.stop();
        stopWakeWatch();
        power.stop();
        channel.close();
        stopGuard();
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
