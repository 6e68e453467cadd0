/**
 * What the host uses when nothing is configured.
 */
import { hostname } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { LoadHostConfigOptions, PushSettings, RunLimits } from './types.js';

export const DEFAULT_PORT = 8787;
export const DEFAULT_BIND = '127.0.0.1';

export const DEFAULT_LIMITS: RunLimits = {
  maxActiveRuns: 1,
  maxModelTurns: 50,
  runWallTimeMs: 2 * 60 * 60 * 1000,
  modelIdleTimeoutMs: 120 * 1000,
  toolResultMaxChars: 16_000,
  attachmentMaxBytes: 20 * 1024 * 1024,
  runAttachmentsMaxBytes: 50 * 1024 * 1024,
  attachmentDiskReserveBytes: 1024 * 1024 * 1024,
};

/**
 * Push defaults: a subject the push services accept (set your own address: they use it to
 * reach whoever runs the sender), the tool and workspace named, and retries for about an
 * hour (2 s doubling to 5 min, 12 tries).
 */
export const DEFAULT_PUSH: PushSettings = {
  subject: 'mailto:tether@example.com',
  allowedEndpoints: [],
  body: 'names',
  initialDelayMs: 2_000,
  maxDelayMs: 5 * 60 * 1000,
  maxAttempts: 12,
  requestTimeoutMs: 10_000,
};

/**
 * `~/Library/Application Support/Tether` on macOS; elsewhere `$XDG_DATA_HOME/tether`, or
 * `~/.local/share/tether` when XDG_DATA_HOME is unset or relative (the XDG spec says to
 * ignore a relative one).
 */
function defaultDataDir(
  platform: NodeJS.Platform,
  homedir: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  if (platform === 'darwin') return join(homedir, 'Library', 'Application Support', 'Tether');
  const xdg = env.XDG_DATA_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'tether');
  return join(homedir, '.local', 'share', 'tether');
}

/**
 * The data directory, absolute: `flag` (the value of `--data`), else TETHER_DATA_DIR, else
 * {@link defaultDataDir}; a relative path is taken from `cwd`. `tether start` and the
 * commands that find the running host through `<dataDir>/admin.json` resolve it alike.
 */
export function resolveDataDir(
  flag: string | undefined,
  options: Omit<LoadHostConfigOptions, 'argv'>,
): string {
  const fromEnv = options.env.TETHER_DATA_DIR;
  return resolve(
    options.cwd,
    flag ??
      (fromEnv === undefined || fromEnv === ''
        ? defaultDataDir(options.platform, options.homedir, options.env)
        : fromEnv),
  );
}

/** The machine's name without the `.local` that macOS adds. */
export function defaultHostName(): string {
  return hostname().replace(/\.local$/i, '');
}
