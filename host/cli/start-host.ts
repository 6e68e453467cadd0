/**
 * `tether start`: config, data directory, identity, store, recovery, runtime, HTTP, and a
 * graceful stop. The printed `listening on http://ADDR:PORT` line is a contract
 * (docs/protocol.md §9): harnesses wait for it. Each part is built by its own folder (or a
 * host-*.ts file here); the steps below say in what order they start and stop.
 */
import { homedir } from 'node:os';
import { ensureDataDir, loadHostConfig, redactedConfig, type HostConfig } from '../config/index.js';
import { armFaultPoints } from '../faults/index.js';
import { withStoredKeys } from '../identity/index.js';
import { createLogger, type Logger, type LogRotation } from '../log/index.js';
import { createPowerWatch } from '../power/index.js';
import type { Runtime } from '../runtime/index.js';
import { setEnglishIssueMessages } from '../../protocol/index.js';
import {
  createHostServer,
  removeAdminFile,
  type AdminFile,
  writeAdminFile,
  type ChannelLimits,
  type HttpLimits,
} from '../server/index.js';
import { lockDataDir, type Store } from '../store/index.js';
import { VERSION } from '../version.js';
import { hostWorkspaces } from './demo-workspace.js';
import { HostLifecycle } from './host-lifecycle.js';
import { HostOrigin } from './host-origin.js';
import { createHostRuntime, startRuntime } from './host-runtime.js';
import { localTls } from './host-tls.js';
import { gatherSecrets } from './host-secrets.js';
import { openHostStore } from './host-store.js';
import { printStartBanner } from './start-banner.js';
import { takeLogFormat, terminalLogSink } from './terminal-log.js';

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
  const config = await withStoredKeys(start.config, process.platform);
  const workspaces = hostWorkspaces(config);
  const log: Logger = createLogger({
    level: config.logLevel,
    dataDir: config.dataDir,
    sink: terminalLogSink(start.logFormat),
    ...(options.logRotation === undefined ? {} : { rotation: options.logRotation }),
  });
  // Read before anything is written: a secret that cannot be read stops the start.
  const secrets = await gatherSecrets(config, log);
  const { identity } = secrets;
  for (const warning of config.warnings) log.warn(warning);
  if (start.faults !== null) {
    log.warn('fault point armed: the host kills itself there', { ...start.faults });
  }
  log.info('starting', { version: VERSION, hostId: identity.id, config: redactedConfig(config) });

  const store = await openHostStore(config.dataDir, log, secrets.redactor);
  const { runtime, mcp, sandbox } = createHostRuntime(config, { store, secrets, workspaces, log });
  const tls = localTls(config, log);
  const origin = new HostOrigin(
    { bind: config.bind, tls: tls !== null, tailscale: config.tailscale },
    log,
  );
  const server = createHostServer({
    runtime,
    identity,
    hostName: config.hostName,
    version: VERSION,
    log,
    bind: config.bind,
    port: config.port,
    tls,
    adminToken: secrets.adminToken,
    defaultOrigin: (port) => origin.defaultOrigin(port),
    ...(options.appDir === undefined ? {} : { appDir: options.appDir }),
    ...(options.channelLimits === undefined ? {} : { channelLimits: options.channelLimits }),
    ...(options.httpLimits === undefined ? {} : { httpLimits: options.httpLimits }),
  });
  const power = createPowerWatch({
    runtime,
    policy: config.keepAwake,
    platform: process.platform,
    log: log.child({ component: 'power' }),
  });
  const adminFile = (): AdminFile => ({
    url: server.url,
    token: secrets.adminToken,
    pid: process.pid,
    instance: runtime.instance,
    ...(tls === null ? {} : { ca: tls.caPem }),
    ...(origin.tailnet === null ? {} : { tailnetOrigin: origin.tailnet.origin }),
  });
  // Started in this order, stopped in reverse. Recovery writes: only a host that got its
  // port (and its tailnet origin) may change the data directory.
  const lifecycle = new HostLifecycle([
    { name: 'store', stop: () => store.close() },
    { name: 'server', start: () => server.listen(), stop: () => server.close() },
    { name: 'tailnet', start: () => origin.publish(server.port), stop: () => origin.unpublish() },
    // Servers a dead host left are killed before new ones start; connecting goes on behind.
    { name: 'mcp', start: () => mcp.start(), stop: () => mcp.stop() },
    { name: 'runtime', start: () => startRuntime(runtime, log), stop: () => runtime.stop(10_000) },
    { name: 'power', start: () => power.start(), stop: () => power.stop() },
    // Local commands reach the admin API on the host's own URL.
    {
      name: 'admin file',
      start: () => writeAdminFile(config.dataDir, adminFile()),
      stop: () => removeAdminFile(config.dataDir),
    },
  ]);
  await lifecycle.start();

  printStartBanner(print, log, {
    config,
    hostId: identity.id,
    dataDirCreated: start.dataDirCreated,
    workspaces,
    modelName: runtime.model?.name ?? null,
    tls,
    port: server.port,
    adminToken: secrets.adminToken,
    url: server.url,
    sandbox,
    tailnet: origin.tailnet,
    lanName: origin.lanName(),
  });
  log.info('listening', { url: server.url, bind: config.bind });
  return runningHost(server.url, { config, runtime, store, lifecycle, log });
}

/** The started host, whose stop runs once however often it is asked. */
function runningHost(
  url: string,
  host: {
    config: HostConfig;
    runtime: Runtime;
    store: Store;
    lifecycle: HostLifecycle;
    log: Logger;
  },
): RunningHost {
  const { lifecycle, log } = host;
  let stopping: Promise<void> | null = null;
  return {
    url,
    config: host.config,
    runtime: host.runtime,
    store: host.store,
    stop() {
      stopping ??= (async () => {
        log.info('stopping');
        await lifecycle.stop();
        log.info('stopped');
        log.close();
      })();
      return stopping;
    },
  };
}
