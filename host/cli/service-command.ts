/**
 * `tether service install | uninstall | restart | status | logs`: the host as a per-user
 * service that starts at login and comes back after a crash (launchd on macOS, systemd's
 * user instance on Linux).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ensureDataDir, loadHostConfig } from '../config/index.js';
import { tetherCommand, UsageError } from '../../common/cli/index.js';
import { prepareTailnet } from '../tailscale/index.js';
import type { HostCommandContext } from './host-command.js';
import { humanLogLine, readLastLines } from './service-log.js';
import { chooseServiceManager, defaultServiceName } from './service-manager.js';
import { serviceOutputPath, serviceSpec, type ServiceManager } from './service-spec.js';
import { conflictFix, describeHolder, serviceDataDir, serviceReport } from './service-status.js';

/** The usage text of `service`, for `--help` and command-line errors. */
export const SERVICE_USAGE = `Usage: tether service <install|uninstall|restart|status|logs> [options]

Runs the host as your own login service: launchd on macOS (~/Library/LaunchAgents),
systemd's user instance on Linux (~/.config/systemd/user). It starts at login, comes back
after a crash (not after a clean stop) and writes its output to <data>/logs/.

  install     write the service (replacing one) from the current configuration and start it
  uninstall   stop it and remove the service file; the data directory is kept
  restart     stop the installed service if it runs and start it again
  status      whether it is loaded and running, its pid, last exit and URL, and when it is
              not running, the last error it printed
  logs        print the end of the host log (<data>/logs/host.log) and of the service's own
              output (<data>/logs/service.log)

Options:
  --data DIR         data directory (as for tether start; status and logs: else the
                     installed service's)
  --config FILE      install: a config file to start with (else <data>/config.json)
  --port N           install: the port (else the config's, else 8787)
  --bind ADDR        install: the address to listen on
  --workspace DIR    install: a workspace (repeatable; else the config's, else this folder)
  --https            install: serve HTTPS with the local CA
  --tailscale        install: publish the host on your tailnet with tailscale serve at each
                     start (checked now: Tailscale connected, MagicDNS and HTTPS on)
  --name NAME        the launchd label or systemd unit (default dev.tether.host / tether)
  -n, --lines N      logs: how many lines of each file (default 50)
  -f, --follow       logs: keep printing new lines
  --json             logs: the host log's JSON lines as written, without the service's output

No secret goes into the service file: keep the model key with \`tether model set-key\`.
`;

const OPTIONS = {
  data: { type: 'string' },
  config: { type: 'string' },
  port: { type: 'string' },
  bind: { type: 'string' },
  workspace: { type: 'string', multiple: true },
  https: { type: 'boolean' },
  tailscale: { type: 'boolean' },
  name: { type: 'string' },
  lines: { type: 'string', short: 'n' },
  follow: { type: 'boolean', short: 'f' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const ACTIONS = ['install', 'uninstall', 'restart', 'status', 'logs'] as const;
const ONLY_FOR_INSTALL = ['config', 'port', 'bind', 'workspace', 'https', 'tailscale'] as const;
const ONLY_FOR_LOGS = ['lines', 'follow', 'json'] as const;

const Name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, {
  error: 'expected letters, digits, dots, dashes and underscores',
});
const Lines = z.coerce.number().int().min(1).max(100_000);

/** The environment variables that hold a model key, which a service never sees. */
const KEY_VARIABLES = ['TETHER_MODEL_API_KEY', 'DEEPSEEK_API_KEY', 'OPENAI_API_KEY'];

function parseServiceArgs(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0] ?? 'invalid arguments');
  }
}

/** Runs `tether service …`; resolves with the exit code. */
export async function serviceCommand(
  argv: readonly string[],
  ctx: HostCommandContext,
): Promise<number> {
  const { values, positionals } = parseServiceArgs(argv);
  if (values.help === true) {
    ctx.out(SERVICE_USAGE);
    return 0;
  }
  const [action, ...extra] = positionals;
  if (action === undefined) throw new UsageError(`say what to do: ${ACTIONS.join(', ')}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  if (action !== 'install') {
    const misplaced = ONLY_FOR_INSTALL.find((key) => values[key] !== undefined);
    if (misplaced !== undefined) throw new UsageError(`--${misplaced} is only for install`);
  }
  if (action !== 'logs') {
    const misplaced = ONLY_FOR_LOGS.find((key) => values[key] !== undefined);
    if (misplaced !== undefined) throw new UsageError(`--${misplaced} is only for logs`);
  }
  const name = values.name === undefined ? undefined : Name.safeParse(values.name);
  if (name !== undefined && !name.success) {
    throw new UsageError(`--name ${values.name}: ${name.error.issues[0]?.message ?? 'invalid'}`);
  }
  if (!(ACTIONS as readonly string[]).includes(action)) {
    throw new UsageError(`unknown action ${action}: expected ${ACTIONS.join(', ')}`);
  }
  const manager = chooseServiceManager();
  const serviceName = name?.data ?? defaultServiceName(manager);

  const service: ServiceTarget = { manager, name: serviceName, flags: nameFlag(values.name) };
  switch (action as (typeof ACTIONS)[number]) {
    case 'install':
      return installService(service, values, ctx);
    case 'uninstall':
      return uninstallService(service, ctx);
    case 'restart':
      return restartService(service, ctx);
    case 'status':
      return printServiceStatus(service, values, ctx);
    case 'logs':
      return printServiceLogs(service, values, ctx);
  }
}

/** The service a command acts on, and the `--name` flag that names it again in hints. */
interface ServiceTarget {
  manager: ServiceManager;
  name: string;
  flags: string;
}

type ServiceValues = ReturnType<typeof parseServiceArgs>['values'];

/** `service install`: writes the service from the current configuration and starts it. */
async function installService(
  service: ServiceTarget,
  values: ServiceValues,
  ctx: HostCommandContext,
): Promise<number> {
  const { manager, name: serviceName, flags } = service;
  const startArgs = [
    ...(values.data === undefined ? [] : ['--data', values.data]),
    ...(values.config === undefined ? [] : ['--config', values.config]),
    ...(values.port === undefined ? [] : ['--port', values.port]),
    ...(values.bind === undefined ? [] : ['--bind', values.bind]),
    ...(values.workspace ?? []).flatMap((path) => ['--workspace', path]),
  ];
  const config = loadHostConfig({
    argv: startArgs,
    env: process.env,
    cwd: process.cwd(),
    platform: process.platform,
    homedir: homedir(),
  });
  // Checked before anything is written: a service that cannot publish would only fail.
  const tailscale =
    values.tailscale === true
      ? await prepareTailnet(
          { bind: config.bind, port: config.port, tls: values.https === true },
          {
            flag: 'service install --tailscale',
            next: `run ${tetherCommand()} service install --tailscale again`,
          },
        )
      : null;
  ensureDataDir(config.dataDir);
  mkdirSync(join(config.dataDir, 'logs'), { recursive: true, mode: 0o700 });
  const spec = serviceSpec(serviceName, config, {
    ...(values.config === undefined ? {} : { config: values.config }),
    ...(values.bind === undefined ? {} : { bind: values.bind }),
    ...(values.https === true ? { https: true } : {}),
    ...(tailscale === null ? {} : { tailscale: tailscale.program }),
  });
  const notes = await manager.install(spec);
  ctx.out(`installed ${manager.file(spec.name)} (${manager.kind}) and started it\n`);
  ctx.out(`data: ${config.dataDir}\n`);
  ctx.out(`workspaces: ${config.workspaces.map((w) => w.path).join(', ')}\n`);
  ctx.out(`port: ${config.port}\n`);
  if (tailscale !== null) {
    ctx.out(
      `tailnet: https://${tailscale.dnsName} (tailscale serve --bg at each start, removed at each clean stop)\n`,
    );
  }
  for (const note of notes) ctx.err(`note: ${note}\n`);
  for (const key of KEY_VARIABLES.filter((variable) => process.env[variable])) {
    ctx.err(
      `note: ${key} is set in this shell, but the service does not see it: ` +
        'keep the key with tether model set-key instead\n',
    );
  }
  for (const key of ['TETHER_MODEL_BASE_URL', 'TETHER_MODEL'].filter((v) => process.env[v])) {
    ctx.err(
      `note: ${key} is set in this shell, but the service does not see it: ` +
        'write it to the config file with: tether model set --base-url URL --model NAME\n',
    );
  }
  ctx.out(`check it with: tether service status${flags}\n`);
  return 0;
}

/** `service uninstall`: stops the service and removes its file; the data is kept. */
async function uninstallService(service: ServiceTarget, ctx: HostCommandContext): Promise<number> {
  const { manager, name: serviceName } = service;
  const { removed, notes } = await manager.uninstall(serviceName);
  ctx.out(
    removed
      ? `removed ${manager.file(serviceName)}; the data directory is kept\n`
      : `no service was installed at ${manager.file(serviceName)}\n`,
  );
  for (const note of notes) ctx.err(`note: ${note}\n`);
  return 0;
}

/** `service restart`: stops the installed service if it runs and starts it again. */
async function restartService(service: ServiceTarget, ctx: HostCommandContext): Promise<number> {
  const { manager, name: serviceName, flags } = service;
  const file = manager.file(serviceName);
  if (!existsSync(file)) {
    ctx.err(`no service is installed at ${file}: install it with tether service install\n`);
    return 1;
  }
  await manager.restart(serviceName);
  ctx.out(`restarted ${serviceName} (${manager.kind})\n`);
  ctx.out(`check it with: tether service status${flags}\n`);
  return 0;
}

/** `service status`: what the manager and the host say; exits 3 when it is not running. */
async function printServiceStatus(
  service: ServiceTarget,
  values: ServiceValues,
  ctx: HostCommandContext,
): Promise<number> {
  const { manager, name: serviceName, flags } = service;
  const dataDir = serviceDataDir(manager, serviceName, values.data, (flag) => ctx.dataDir(flag));
  const report = await serviceReport(manager, serviceName, dataDir);
  const running = report.running
    ? `yes, pid ${report.pid ?? '?'}`
    : `no${report.managerState === null ? '' : ` (${manager.kind}: ${report.managerState})`}`;
  ctx.out(`service: ${serviceName} (${manager.kind})\n`);
  ctx.out(`file: ${report.file}${report.installed ? '' : ' (not installed)'}\n`);
  ctx.out(`data: ${report.dataDir}\n`);
  ctx.out(`loaded: ${report.loaded ? 'yes' : 'no'}\n`);
  ctx.out(`running: ${running}\n`);
  ctx.out(`last exit: ${report.lastExit ?? 'none'}\n`);
  if (report.lastError !== null) ctx.out(`last error: ${report.lastError}\n`);
  if (report.conflict !== null) {
    ctx.out(`${report.conflict.resource} is in use by ${describeHolder(report.conflict)}\n`);
  }
  ctx.out(`url: ${report.url ?? 'none (the host is not running on this data directory)'}\n`);
  for (const note of report.notes) ctx.out(`note: ${note}\n`);
  if (!report.installed) ctx.out('install it with: tether service install\n');
  else if (report.conflict !== null) ctx.out(`fix: ${conflictFix(report.conflict)}\n`);
  else if (!report.loaded) ctx.out(`load and start it with: tether service restart${flags}\n`);
  else if (!report.running) {
    ctx.out(`see its output with: tether service logs${flags}${dataFlag(values.data)}\n`);
    ctx.out(`then start it again with: tether service restart${flags}\n`);
  }
  return report.running ? 0 : 3;
}

/** `service logs`: the end of the host log and the service's output, or follows them. */
async function printServiceLogs(
  service: ServiceTarget,
  values: ServiceValues,
  ctx: HostCommandContext,
): Promise<number> {
  const { manager, name: serviceName, flags } = service;
  const lines = values.lines === undefined ? 50 : Lines.safeParse(values.lines);
  if (typeof lines !== 'number' && !lines.success) {
    throw new UsageError(`--lines ${values.lines}: expected a whole number from 1`);
  }
  const count = typeof lines === 'number' ? lines : lines.data;
  const dataDir = serviceDataDir(manager, serviceName, values.data, (flag) => ctx.dataDir(flag));
  const hostLog = join(dataDir, 'logs', 'host.log');
  const wanted = values.json === true ? [hostLog] : [hostLog, serviceOutputPath(dataDir)];
  const files = wanted.filter((path) => existsSync(path));
  if (files.length === 0) {
    ctx.err(
      `no log at ${wanted.join(' or ')} yet: has the host started on ${dataDir}? ` +
        `(tether service status${flags})\n`,
    );
    return 1;
  }
  const show = values.json === true ? (line: string) => line : humanLogLine;
  if (values.follow !== true) {
    files.forEach((path, index) => {
      // The headers `tail` prints for several files, so -f looks the same.
      if (files.length > 1) ctx.out(`${index === 0 ? '' : '\n'}==> ${path} <==\n`);
      ctx.out(
        readLastLines(path, count)
          .map((line) => `${show(line)}\n`)
          .join(''),
      );
    });
    return 0;
  }
  const tail = spawn('tail', ['-n', String(count), '-F', ...files], {
    stdio: ['ignore', 'pipe', 'inherit'],
    signal: ctx.signal,
  });
  tail.on('error', () => undefined);
  for await (const line of createInterface({ input: tail.stdout })) ctx.out(`${show(line)}\n`);
  return 0;
}

const nameFlag = (name: string | undefined) => (name === undefined ? '' : ` --name ${name}`);
const dataFlag = (dir: string | undefined) => (dir === undefined ? '' : ` --data '${dir}'`);
