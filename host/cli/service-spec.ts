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
  /** Where the service's stdout and stderr go: `<dataDir>/logs/service.log`. */
  outputPath: string;
}

/** The flags of `tether start` that `service install` takes and passes on. */
export interface ServiceStartFlags {
  config?: string;
  bind?: string;
  https?: boolean;
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
  const path = [...new Set([dirname(process.execPath), ...SYSTEM_PATH])].join(':');
  return {
    name,
    dataDir: config.dataDir,
    programArguments: args,
    environment: { PATH: path, TETHER_KEY_STORE: config.keyStore },
    outputPath: join(config.dataDir, 'logs', 'service.log'),
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
  /** The last exit status, or null when it never exited (or the manager does not say). */
  lastExit: string | null;
}

/** A service manager: launchd on macOS, systemd's user instance on Linux. */
export interface ServiceManager {
  /** `launchd` or `systemd`, for messages. */
  readonly kind: string;
  /** The file `install` writes for `name`. */
  file(name: string): string;
  /** Writes the definition (replacing one) and (re)starts the service. */
  install(spec: ServiceSpec): Promise<void>;
  /** Stops the service and removes its definition; false when it was not installed. */
  uninstall(name: string): Promise<boolean>;
  status(name: string): Promise<ServiceState>;
}
