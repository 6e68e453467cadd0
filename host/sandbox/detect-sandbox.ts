/**
 * Which OS sandbox this machine can run, found once at start by running one: bubblewrap on
 * Linux, `sandbox-exec` on macOS. A sandbox that is installed but cannot start (a
 * container without user namespaces, a macOS that refuses the profile) is not available,
 * and says why: nothing falls back silently.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { SandboxStatus } from './types.js';

/** Where to look and what to run; the defaults are the machine's own. */
export interface DetectOptions {
  platform: NodeJS.Platform;
  /** The host's PATH, searched for `bwrap`. */
  searchPath: string;
}

const SEATBELT_PROGRAM = '/usr/bin/sandbox-exec';
const PROBE_TIMEOUT_MS = 10_000;

/** The sandbox of this machine, or why there is none and what to do. */
export function detectSandbox(options: DetectOptions): SandboxStatus {
  if (options.platform === 'linux') return detectBubblewrap(options.searchPath);
  if (options.platform === 'darwin') return detectSeatbelt();
  return {
    available: false,
    reason: `Tether has no sandbox for ${options.platform}`,
    fix: 'run the host on macOS or Linux',
  };
}

function detectBubblewrap(searchPath: string): SandboxStatus {
  const program = findProgram('bwrap', searchPath);
  if (program === null) {
    return {
      available: false,
      reason: 'bubblewrap (bwrap) is not installed',
      fix: 'install it: sudo apt-get install bubblewrap (Debian, Ubuntu), sudo dnf install bubblewrap (Fedora)',
    };
  }
  const probe = spawnSync(
    program,
    [
      '--die-with-parent',
      '--unshare-pid',
      '--unshare-net',
      '--cap-drop',
      'ALL',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
      '--',
      '/bin/true',
    ],
    { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  if (probe.status === 0) return { available: true, kind: 'bwrap', program };
  const said = firstLine(probe.stderr) ?? probe.error?.message ?? `exit status ${probe.status}`;
  return {
    available: false,
    reason: `bubblewrap cannot start a sandbox here (${said})`,
    fix:
      'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or on ' +
      'Ubuntu 24.04 an AppArmor profile for bwrap), or run the host outside a container',
  };
}

function detectSeatbelt(): SandboxStatus {
  const probe = spawnSync(SEATBELT_PROGRAM, ['-p', '(version 1)(allow default)', '/usr/bin/true'], {
    encoding: 'utf8',
    timeout: PROBE_TIMEOUT_MS,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (probe.status === 0) return { available: true, kind: 'seatbelt', program: SEATBELT_PROGRAM };
  const said = firstLine(probe.stderr) ?? probe.error?.message ?? `exit status ${probe.status}`;
  return {
    available: false,
    reason: `sandbox-exec cannot start a sandbox here (${said})`,
    fix: 'run the host directly on macOS, not inside another sandbox or a container',
  };
}

function findProgram(name: string, searchPath: string): string | null {
  for (const folder of searchPath.split(':')) {
    if (!path.isAbsolute(folder)) continue;
    const candidate = path.join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}

function firstLine(text: string | null | undefined): string | null {
  const line = text?.split('\n').find((candidate) => candidate.trim() !== '');
  return line === undefined ? null : line.trim();
}
