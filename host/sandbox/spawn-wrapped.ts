/**
 * Starting a command the sandbox wrapped: its program as the leader of its own process
 * group, with the file it must find open as its descriptor 3 (bubblewrap's seccomp
 * filter) where it has one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { WrappedCommand } from './types.js';

/**
 * Spawns `wrapped` in `cwd` with `env` and its own variables, detached: its own group (and session), so one
 * signal to -pgid reaches every descendant. Throws what opening its descriptor 3 or
 * spawning throws; a spawn that fails later says so with the child's `error` event.
 */
export function spawnWrapped(
  wrapped: WrappedCommand,
  options: { cwd: string; env: Record<string, string>; stdin: 'pipe' | 'ignore' },
): ChildProcess {
  let fd3: number | null = null;
  try {
    if (wrapped.fd3 !== undefined) fd3 = openSync(wrapped.fd3, 'r');
    return spawn(wrapped.file, wrapped.args, {
      cwd: options.cwd,
      env: { ...options.env, ...wrapped.env },
      detached: true,
      stdio: [options.stdin, 'pipe', 'pipe', ...(fd3 === null ? [] : [fd3])],
    });
  } finally {
    // The child has its own copy now.
    if (fd3 !== null) closeSync(fd3);
  }
}
