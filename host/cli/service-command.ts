/**
 * `tether service install | uninstall | status | logs`: the host as a per-user service
 * that starts at login and comes back after a crash (launchd on macOS, systemd's user
 * instance on Linux).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ensureDataDir, loadHostConfig } from '../config/index.js';
import { readAdminFile } from '../server/index.js';
import { UsageError } from '../../common/cli/index.js';
import type { HostCommandContext } from './host-command.js';
import { launchAgents } from './launch-agent.js';
import { serviceSpec, type ServiceManager } from './service-spec.js';
import { systemdUser } from './systemd-unit.js';

/** The usage text of `service`, for `--help` and command-line errors. */
export const SERVICE_USAGE = `Usage: tether service <install|uninstall|status|logs> [options]

Runs the host as your own login service: launchd on macOS (~/Library/LaunchAgents),
systemd's user instance on Linux (~/.config/systemd/user). It starts at login, comes back
after a crash (not after a clean stop) and writes its output to <data>/logs/.

  install     write the service (replacing one) from the current configuration and start it
  uninstall   stop it and remove the service file; the data directory is kept
  status      whether it is loaded and running, its pid, last exit and URL
  logs        print the end of the host log (<data>/logs/host.log)

Options:
  --data DIR         data directory (as for tether start)
  --config FILE      install: a config file to start with (else <data>/config.json)
  --port N           install: the port (else the config's, else 8787)
  --bind ADDR        install: the address to listen on
  --workspace DIR    install: a workspace (repeatable; else the config's, else this folder)
  --https            install: serve HTTPS with the local CA
  --name NAME        the launchd label or systemd unit (default dev.tether.host / tether)
  -n, --lines N      logs: how many lines (default 50)
  -f, --follow       logs: keep printing new lines

No secret goes into the service file: keep the model key with \`tether model set-key\`.
`;

const OPTIONS = {
  data: { type: 'string' },
  config: { type: 'string' },
  port: { type: 'string' },
  bind: { type: 'string' },
  workspace: { type: 'string', multiple: true },
  https: { type: 'boolean' },
  name: { type: 'string' },
  lines: { type: 'string', short: 'n' },
  follow: { type: 'boolean', short: 'f' },
  help: { type: 'boolean', short: 'h' },
} as const;

const ONLY_FOR_INSTALL = ['config', 'port', 'bind', 'workspace', 'https'] as const;

const Name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, {
  error: 'expected letters, digits, dots, dashes and underscores',
});
const Lines = z.coerce.number().int().min(1).max(100_000);
/** Tests choose the macOS path on Linux; nobody else needs to. */
const Manager = z.enum(['launchd', 'systemd']);

/** The environment variables that hold a model key, which a service never sees. */
const KEY_VARIABLES = ['TETHER_MODEL_API_KEY', 'DEEPSEEK_API_KEY', 'OPENAI_API_KEY'];

function serviceManager(): ServiceManager {
  const forced = process.env['TETHER_SERVICE_MANAGER'];
  const chosen = Manager.safeParse(forced);
  if (forced !== undefined && forced !== '' && !chosen.success) {
    throw new Error(`TETHER_SERVICE_MANAGER=${forced}: expected launchd or systemd (or unset it)`);
  }
  const kind = chosen.success
    ? chosen.data
    : process.platform === 'darwin'
      ? 'launchd'
      : process.platform === 'linux'
        ? 'systemd'
        : null;
  if (kind === null) {
    throw new Error(
      `tether service supports macOS (launchd) and Linux (systemd), not ${process.platform}: ` +
        'run tether start in a terminal instead',
    );
  }
  const uid = process.getuid?.() ?? 0;
  return kind === 'launchd' ? launchAgents(homedir(), uid) : systemdUser(homedir());
}

/** Runs `tether service …`; resolves with the exit code. */
export async function serviceCommand(
  argv: readonly string[],
  ctx: HostCommandContext,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0] ?? 'invalid arguments');
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    ctx.out(SERVICE_USAGE);
    return 0;
  }
  const [action, ...extra] = positionals;
  if (action === undefined)
    throw new UsageError('say what to do: install, uninstall, status or logs');
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  if (action !== 'install') {
    const misplaced = ONLY_FOR_INSTALL.find((key) => values[key] !== undefined);
    if (misplaced !== undefined) throw new UsageError(`--${misplaced} is only for install`);
  }
  const name = values.name === undefined ? undefined : Name.safeParse(values.name);
  if (name !== undefined && !name.success) {
    throw new UsageError(`--name ${values.name}: ${name.error.issues[0]?.message ?? 'invalid'}`);
  }

  switch (action) {
    case 'install': {
      const manager = serviceManager();
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
      ensureDataDir(config.dataDir);
      mkdirSync(join(config.dataDir, 'logs'), { recursive: true, mode: 0o700 });
      const spec = serviceSpec(name?.data ?? defaultName(manager), config, {
        ...(values.config === undefined ? {} : { config: values.config }),
        ...(values.bind === undefined ? {} : { bind: values.bind }),
        ...(values.https === true ? { https: true } : {}),
      });
      await manager.install(spec);
      ctx.out(`installed ${manager.file(spec.name)} (${manager.kind}) and started it\n`);
      ctx.out(`data: ${config.dataDir}\n`);
      ctx.out(`workspaces: ${config.workspaces.map((w) => w.path).join(', ')}\n`);
      ctx.out(`port: ${config.port}\n`);
      for (const key of KEY_VARIABLES.filter((variable) => process.env[variable])) {
        ctx.err(
          `note: ${key} is set in this shell, but the service does not see it: ` +
            'keep the key with `tether model set-key` instead\n',
        );
      }
      for (const key of ['TETHER_MODEL_BASE_URL', 'TETHER_MODEL'].filter((v) => process.env[v])) {
        ctx.err(
          `note: ${key} is set in this shell, but the service does not see it: ` +
            'write it to the config file with `tether model set --base-url URL --model NAME`\n',
        );
      }
      ctx.out(`check it with: tether service status${nameFlag(values.name)}\n`);
      return 0;
    }
    case 'uninstall': {
      const manager = serviceManager();
      const serviceName = name?.data ?? defaultName(manager);
      const removed = await manager.uninstall(serviceName);
      ctx.out(
        removed
          ? `stopped and removed ${manager.file(serviceName)}; the data directory is kept\n`
          : `no service was installed at ${manager.file(serviceName)}\n`,
      );
      return 0;
    }
    case 'status': {
      const manager = serviceManager();
      const serviceName = name?.data ?? defaultName(manager);
      const state = await manager.status(serviceName);
      const dataDir = ctx.dataDir(values.data);
      const url = state.running ? readAdminFile(dataDir)?.url : undefined;
      ctx.out(`service: ${serviceName} (${manager.kind})\n`);
      ctx.out(`file: ${state.file}${state.installed ? '' : ' (not installed)'}\n`);
      ctx.out(`loaded: ${state.loaded ? 'yes' : 'no'}\n`);
      ctx.out(`running: ${state.running ? `yes, pid ${state.pid ?? '?'}` : 'no'}\n`);
      ctx.out(`last exit: ${state.lastExit ?? 'none'}\n`);
      ctx.out(`url: ${url ?? 'none (the host is not running on this data directory)'}\n`);
      if (!state.installed) ctx.out('install it with: tether service install\n');
      else if (!state.running) {
        ctx.out(`see why with: tether service logs${dataFlag(values.data)}\n`);
      }
      return state.running ? 0 : 3;
    }
    case 'logs': {
      const lines = values.lines === undefined ? 50 : Lines.safeParse(values.lines);
      if (typeof lines !== 'number' && !lines.success) {
        throw new UsageError(`--lines ${values.lines}: expected a whole number from 1`);
      }
      const count = typeof lines === 'number' ? lines : lines.data;
      const dataDir = ctx.dataDir(values.data);
      const path = join(dataDir, 'logs', 'host.log');
      if (!existsSync(path)) {
        ctx.err(`no host log at ${path} yet: has the host started on ${dataDir}?\n`);
        return 1;
      }
      if (values.follow !== true) {
        const text = readFileSync(path, 'utf8');
        const all = text.split('\n');
        if (all.at(-1) === '') all.pop();
        ctx.out(
          all
            .slice(-count)
            .map((line) => `${line}\n`)
            .join(''),
        );
        return 0;
      }
      const tail = spawn('tail', ['-n', String(count), '-F', path], {
        stdio: ['ignore', 'inherit', 'inherit'],
        signal: ctx.signal,
      });
      await new Promise<void>((resolve) => tail.on('close', () => resolve()));
      return 0;
    }
    default:
      throw new UsageError(`unknown action ${action}: expected install, uninstall, status or logs`);
  }
}

function defaultName(manager: ServiceManager): string {
  return manager.kind === 'launchd' ? 'dev.tether.host' : 'tether';
}

const nameFlag = (name: string | undefined) => (name === undefined ? '' : ` --name ${name}`);
const dataFlag = (dir: string | undefined) => (dir === undefined ? '' : ` --data '${dir}'`);
