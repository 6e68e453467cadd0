/**
 * A systemd user unit: `~/.config/systemd/user/<name>.service`, driven with
 * `systemctl --user`.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { constants, userInfo } from 'node:os';
import { join } from 'node:path';
import { lastLine, runTool, type ToolOutcome } from './run-tool.js';
import type { ServiceManager, ServiceSpec, ServiceState } from './service-spec.js';

/**
 * A path systemd reads verbatim (`WorkingDirectory=`, `StandardOutput=append:`): no quotes
 * and no `\x20` escapes are undone there, only `%` specifiers are expanded, and the line is
 * trimmed, so a path ending in white space or a backslash (which continues the line), or
 * holding a control character, cannot be written at all.
 */
function verbatimPath(path: string): string {
  const control = [...path].some((char) => (char.codePointAt(0) ?? 0) < 0x20 || char === '\x7f');
  if (control || /[\s\\]$/.test(path)) {
    throw new Error(
      `the data directory ${JSON.stringify(path)} cannot be named in a systemd unit ` +
        '(it ends in a space or a backslash, or holds a control character): ' +
        'choose another one with --data',
    );
  }
  return path.replace(/%/g, '%%');
}

/**
 * One quoted word of `ExecStart=` or `Environment=`: `\` and `"` escaped, specifiers
 * (`%`) doubled; in `ExecStart=` also `$`, which it expands when it runs the command
 * (`Environment=` does not).
 */
function quote(word: string, dollars: 'double' | 'keep'): string {
  if (/[\r\n]/.test(word)) {
    throw new Error(`a service argument cannot contain a line break: ${JSON.stringify(word)}`);
  }
  const escaped = word.replace(/["\\]/g, '\\$&').replace(/%/g, '%%');
  return `"${dollars === 'double' ? escaped.replace(/\$/g, '$$$$') : escaped}"`;
}

/** The unit: restarted after a failure (not after a clean stop), started at login. */
function systemdUnit(spec: ServiceSpec): string {
  const dataDir = verbatimPath(spec.dataDir);
  const output = verbatimPath(spec.outputPath);
  const env = Object.entries(spec.environment)
    .map(([key, value]) => quote(`${key}=${value}`, 'keep'))
    .join(' ');
  return `[Unit]
Description=Tether host (${dataDir})
After=network-online.target

[Service]
Type=simple
ExecStart=${spec.programArguments.map((word) => quote(word, 'double')).join(' ')}
WorkingDirectory=${dataDir}
Environment=${env}
Restart=on-failure
RestartSec=10
StandardOutput=append:${output}
StandardError=append:${output}

[Install]
WantedBy=default.target
`;
}

/** What systemctl says when it cannot reach the user instance (no login session, su, sudo). */
const NO_BUS = /failed to connect to .*bus/i;

/** Linger: the user instance, and so the service, runs from boot without anyone logged in. */
const LINGER_NOTE =
  'the service runs while you are logged in: it stops when your last session ends and starts at your next login; ' +
  'to run it from boot without a login, run: sudo loginctl enable-linger $USER';

function noBus(outcome: ToolOutcome): string {
  return (
    `systemctl --user cannot reach your systemd user instance (${lastLine(outcome)}). ` +
    'It runs for a login session: run this in one (a desktop or ssh login as this user, not su or sudo), ' +
    'or export XDG_RUNTIME_DIR=/run/user/$(id -u) if one is running; ' +
    'on a machine nobody logs in to, sudo loginctl enable-linger $USER starts it at boot'
  );
}

/** The last exit as `systemctl show` gives it: ExecMainCode 1 exited, 2 killed, 3 dumped core. */
function describeExit(code: string | undefined, status: string | undefined): string | null {
  if (code === undefined || code === '0' || status === undefined) return null;
  if (code === '1') return status === '0' ? null : status;
  const signal = Object.entries(constants.signals).find(([, number]) => String(number) === status);
  return `signal ${status}${signal === undefined ? '' : ` (${signal[0]})`}`;
}

/** systemctl and loginctl for the user's own systemd instance, and where its units live. */
interface SystemdUserControl {
  folder: string;
  file: (name: string) => string;
  systemctl: (...args: string[]) => ReturnType<typeof runTool>;
  /** Runs systemctl; a failure names the unit's journal only when there is a unit to look at. */
  mustRun: (args: string[], unit?: string) => Promise<void>;
  /** The linger note, unless the user's manager outlives their sessions already. */
  lingerNotes: () => Promise<string[]>;
}

function systemdUserControl(home: string): SystemdUserControl {
  const folder = join(home, '.config', 'systemd', 'user');
  const systemctl = (...args: string[]) => runTool('systemctl', ['--user', ...args]);
  return {
    folder,
    file: (name) => join(folder, `${name}.service`),
    systemctl,
    mustRun: async (args, unit) => {
      const outcome = await systemctl(...args);
      if (outcome.code === 0) return;
      if (NO_BUS.test(outcome.stderr)) throw new Error(noBus(outcome));
      throw new Error(
        `systemctl --user ${args.join(' ')} failed (${outcome.code ?? 'not run'}): ${lastLine(outcome)}` +
          (unit === undefined
            ? ''
            : `. See: tether service status; systemctl --user status ${unit}; journalctl --user -u ${unit}`),
      );
    },
    lingerNotes: async () => {
      const user = userInfo().username;
      const linger = await runTool('loginctl', ['show-user', user, '--property=Linger', '--value']);
      return linger.code === 0 && linger.stdout.trim() === 'yes' ? [] : [LINGER_NOTE];
    },
  };
}

/** systemd's user instance, with units in `<home>/.config/systemd/user`. */
export function systemdUser(home: string): ServiceManager {
  const control = systemdUserControl(home);
  return {
    kind: 'systemd',
    file: control.file,
    install: (spec) => installUnit(control, spec),
    uninstall: (name) => uninstallUnit(control, name),
    async restart(name) {
      const unit = `${name}.service`;
      // As install does, from the file as it is: a unit never loaded (no bus then) starts too.
      await control.mustRun(['daemon-reload']);
      await control.mustRun(['enable', unit], unit);
      await control.mustRun(['restart', unit], unit);
    },
    status: (name) => unitStatus(control, name),
    installedDataDir(name) {
      const path = control.file(name);
      if (!existsSync(path)) return null;
      const line = /^WorkingDirectory=(.+)$/m.exec(readFileSync(path, 'utf8'))?.[1];
      return line === undefined ? null : line.replace(/%%/g, '%');
    },
  };
}

/** Writes the unit, has systemd load it, enables and (re)starts it; answers linger's note. */
async function installUnit(
  { folder, file, mustRun, lingerNotes }: SystemdUserControl,
  spec: ServiceSpec,
): Promise<string[]> {
  const path = file(spec.name);
  const unit = `${spec.name}.service`;
  const text = systemdUnit(spec);
  mkdirSync(folder, { recursive: true });
  const temp = `${path}.tmp`;
  writeFileSync(temp, text, { mode: 0o644 });
  renameSync(temp, path);
  try {
    await mustRun(['daemon-reload']);
  } catch (error) {
    throw new Error(
      `wrote ${path}, but systemd did not load it: ${(error as Error).message}. ` +
        'Then run tether service install again (or tether service uninstall to remove the file)',
      { cause: error },
    );
  }
  await mustRun(['enable', unit], unit);
  // restart, not start: installing again must run the new definition.
  await mustRun(['restart', unit], unit);
  return lingerNotes();
}

/** Stops and disables the unit and removes its file, saying what could not be done. */
async function uninstallUnit(
  { folder, file, systemctl }: SystemdUserControl,
  name: string,
): Promise<{ removed: boolean; notes: string[] }> {
  const path = file(name);
  const unit = `${name}.service`;
  const installed = existsSync(path);
  if (!installed) return { removed: false, notes: [] };
  const notes: string[] = [];
  const disabled = await systemctl('disable', '--now', unit);
  if (disabled.code !== 0) {
    notes.push(
      NO_BUS.test(disabled.stderr)
        ? `${unit} was not stopped: systemctl --user cannot reach your systemd user instance (${lastLine(disabled)}); ` +
            `a copy still running stops when your last session ends, or stop it in a login session: systemctl --user stop ${unit}`
        : `systemctl --user disable --now ${unit} failed (${lastLine(disabled)}): if it still runs, stop it with systemctl --user stop ${unit}`,
    );
  }
  rmSync(path, { force: true });
  // `disable` removes this link; when it could not run, the link would dangle.
  rmSync(join(folder, 'default.target.wants', unit), { force: true });
  if (disabled.code === 0) {
    const reloaded = await systemctl('daemon-reload');
    if (reloaded.code !== 0) {
      notes.push(`systemctl --user daemon-reload failed (${lastLine(reloaded)})`);
    }
  }
  return { removed: true, notes };
}

/** Whether the unit is installed, loaded and running, from `systemctl --user show`. */
async function unitStatus(
  { file, systemctl, lingerNotes }: SystemdUserControl,
  name: string,
): Promise<ServiceState> {
  const path = file(name);
  const shown = await systemctl(
    'show',
    `${name}.service`,
    '--property=LoadState,ActiveState,SubState,MainPID,ExecMainCode,ExecMainStatus',
  );
  const props = new Map(
    shown.stdout.split('\n').flatMap((line) => {
      const at = line.indexOf('=');
      return at < 0 ? [] : [[line.slice(0, at), line.slice(at + 1)] as const];
    }),
  );
  const installed = existsSync(path);
  const pid = Number(props.get('MainPID'));
  const running = props.get('ActiveState') === 'active' && props.get('SubState') === 'running';
  const loaded = shown.code === 0 && props.get('LoadState') === 'loaded';
  const notes: string[] = [];
  if (shown.code !== 0) {
    notes.push(
      NO_BUS.test(shown.stderr)
        ? noBus(shown)
        : `systemctl --user show failed (${lastLine(shown)})`,
    );
  } else if (installed) notes.push(...(await lingerNotes()));
  return {
    file: path,
    installed,
    loaded,
    running,
    pid: Number.isInteger(pid) && pid > 0 ? pid : null,
    lastExit: describeExit(props.get('ExecMainCode'), props.get('ExecMainStatus')),
    managerState:
      running || !loaded
        ? null
        : `${props.get('ActiveState') ?? '?'}/${props.get('SubState') ?? '?'}`,
    notes,
  } satisfies ServiceState;
}
