/**
 * A systemd user unit: `~/.config/systemd/user/<name>.service`, driven with
 * `systemctl --user`.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lastLine, runTool } from './run-tool.js';
import type { ServiceManager, ServiceSpec, ServiceState } from './service-spec.js';

/** One word of `ExecStart=` or `Environment=`: quoted, with systemd's specifiers escaped. */
function quote(word: string): string {
  if (/[\r\n]/.test(word)) throw new Error(`a service argument cannot contain a line break`);
  const escaped = word.replace(/["\\]/g, '\\$&').replace(/%/g, '%%').replace(/\$/g, '$$$$');
  return `"${escaped}"`;
}

/** The unit: restarted after a failure (not after a clean stop), started at login. */
function systemdUnit(spec: ServiceSpec): string {
  const env = Object.entries(spec.environment)
    .map(([key, value]) => quote(`${key}=${value}`))
    .join(' ');
  return `[Unit]
Description=Tether host (${spec.dataDir.replace(/%/g, '%%')})
After=network-online.target

[Service]
Type=simple
ExecStart=${spec.programArguments.map(quote).join(' ')}
WorkingDirectory=${quote(spec.dataDir)}
Environment=${env}
Restart=on-failure
RestartSec=10
StandardOutput=append:${spec.outputPath}
StandardError=append:${spec.outputPath}

[Install]
WantedBy=default.target
`;
}

/** systemd's user instance, with units in `<home>/.config/systemd/user`. */
export function systemdUser(home: string): ServiceManager {
  const folder = join(home, '.config', 'systemd', 'user');
  const file = (name: string) => join(folder, `${name}.service`);
  const systemctl = async (...args: string[]) => {
    const outcome = await runTool('systemctl', ['--user', ...args]);
    if (outcome.code !== 0) {
      throw new Error(
        `systemctl --user ${args.join(' ')} failed (${outcome.code ?? 'not run'}): ` +
          `${lastLine(outcome)}. See: journalctl --user -u ${args.at(-1) ?? ''}`,
      );
    }
    return outcome;
  };
  return {
    kind: 'systemd',
    file,
    async install(spec) {
      const path = file(spec.name);
      mkdirSync(folder, { recursive: true });
      const temp = `${path}.tmp`;
      writeFileSync(temp, systemdUnit(spec), { mode: 0o644 });
      renameSync(temp, path);
      await systemctl('daemon-reload');
      await systemctl('enable', `${spec.name}.service`);
      // restart, not start: installing again must run the new definition.
      await systemctl('restart', `${spec.name}.service`);
    },
    async uninstall(name) {
      const path = file(name);
      const installed = existsSync(path);
      if (installed) await systemctl('disable', '--now', `${name}.service`);
      rmSync(path, { force: true });
      await systemctl('daemon-reload');
      return installed;
    },
    async status(name) {
      const shown = await runTool('systemctl', [
        '--user',
        'show',
        `${name}.service`,
        '--property=LoadState,ActiveState,SubState,MainPID,ExecMainStatus,ExecMainCode',
      ]);
      const props = new Map(
        shown.stdout.split('\n').flatMap((line) => {
          const at = line.indexOf('=');
          return at < 0 ? [] : [[line.slice(0, at), line.slice(at + 1)] as const];
        }),
      );
      const pid = Number(props.get('MainPID'));
      const exitCode = props.get('ExecMainCode');
      return {
        file: file(name),
        installed: existsSync(file(name)),
        loaded: shown.code === 0 && props.get('LoadState') === 'loaded',
        running: props.get('ActiveState') === 'active' && props.get('SubState') === 'running',
        pid: Number.isInteger(pid) && pid > 0 ? pid : null,
        lastExit:
          exitCode === undefined || exitCode === '0' ? null : (props.get('ExecMainStatus') ?? null),
      } satisfies ServiceState;
    },
  };
}
