/**
 * What a service definition says, whatever the service manager: the host's command line,
 * built from the current configuration, and the few variables it needs. No secret is
 * ever part of it: the model key is read by the host from the Keychain (or its 0600
 * file) at each start.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HostConfig } from '../config/index.js';

/** Everything a launchd plist or a systemd unit is written from. */
export interface ServiceSpec {
  /** The launchd label or the systemd unit's name (without `.service`). */
  name: string;
  dataDir: string;
  /** Absolute node, absolute `bin/tether.js`, then `start` and its flags. */
  programArguments: string[];
  /** The service's environment: PATH and TETHER_KEY_STORE, never a key. */
  environment: Record<string, string>;
  /** Where the service's stdout and stderr go: {@link serviceOutputPath}. */
  outputPath: string;
}

/** The file the service manager appends the host's stdout and stderr to. */
export function serviceOutputPath(dataDir: string): string {
  return join(dataDir, 'logs', 'service.log');
}

/** The flags of `tether start` that `service install` takes and passes on. */
export interface ServiceStartFlags {
  config?: string;
  bind?: string;
  https?: boolean;
  /** `--tailscale`: the `tailscale` command found now, whose folder joins the service's PATH. */
  tailscale?: string;
}

const SCRIPT = fileURLToPath(new URL('../../../bin/tether.js', import.meta.url));

/** Folders tools are commonly found in; launchd and systemd start with a bare PATH. */
const SYSTEM_PATH = [
  '/opt/homebrew/bin',
  '/usr/local/bin',
  '/usr/bin',
  '/bin',
  '/usr/sbin',
  '/sbin',
];

/**
 * The service's command line: `--data`, `--port` and every workspace are fixed from
 * `config` now (a service starts in `/`, not in this shell's folder); the model, the
 * policy and the rest are read from the config file at each start.
 */
export function serviceSpec(
  name: string,
  config: HostConfig,
  flags: ServiceStartFlags,
): ServiceSpec {
  const args = [process.execPath, SCRIPT, 'start', '--data', config.dataDir];
  args.push('--port', String(config.port));
  for (const workspace of config.workspaces) args.push('--workspace', workspace.path);
  if (flags.config !== undefined && config.configFile !== null) {
    args.push('--config', config.configFile);
  }
  if (flags.bind !== undefined) args.push('--bind', config.bind);
  if (flags.https === true) args.push('--https');
  if (flags.tailscale !== undefined) args.push('--tailscale');
  const folders = [
    dirname(process.execPath),
    ...SYSTEM_PATH,
    ...(flags.tailscale === undefined ? [] : [dirname(flags.tailscale)]),
  ];
  const path = [...new Set(folders)].join(':');
  return {
    name,
    dataDir: config.dataDir,
    programArguments: args,
    environment: { PATH: path, TETHER_KEY_STORE: config.keyStore },
    outputPath: serviceOutputPath(config.dataDir),
  };
}

/** What `service status` reports. */
export interface ServiceState {
  /** The plist or unit file, and whether it exists. */
  file: string;
  installed: boolean;
  /** Known to the service manager (launchd: bootstrapped; systemd: enabled or active). */
  loaded: boolean;
  running: boolean;
  pid: number | null;
  /** How it last ended (`1`, `signal 9 (SIGKILL)`), or null when it never exited or ended well. */
  lastExit: string | null;
  /** The manager's own words for a state other than running (`activating/auto-restart`, `spawn scheduled`). */
  managerState: string | null;
  /** What the user should know besides: the manager cannot be reached, linger is off. */
  notes: string[];
}

/** What `uninstall` did: whether there was a service, and what it could not do. */
interface Removal {
  removed: boolean;
  notes: string[];
}

/** A service manager: launchd on macOS, systemd's user instance on Linux. */
export interface ServiceManager {
  /** `launchd` or `systemd`, for messages. */
  readonly kind: 'launchd' | 'systemd';
  /** The file `install` writes for `name`. */
  file(name: string): string;
  /**
   * Writes the definition (replacing one) and (re)starts the service; resolves with notes
   * for the user (systemd: how to keep it running without a login).
   *
   * @throws Error naming a path the definition cannot hold, or what the manager said.
   */
  install(spec: ServiceSpec): Promise<string[]>;
  /** Stops the service and removes its definition, even when the manager cannot be reached. */
  uninstall(name: string): Promise<Removal>;
  /** Loads the installed definition if it is not, stops the service if it runs, starts it. */
  restart(name: string): Promise<void>;
  status(name: string): Promise<ServiceState>;
  /** The data directory the installed definition runs the host on; null when none is installed. */
  installedDataDir(name: string): string | null;
}
