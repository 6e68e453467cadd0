/**
 * A sleep assertion held by a child process, which dies with the host even when the
 * host is killed with SIGKILL: `caffeinate -i -w <hostpid>` on macOS (it exits when that
 * pid does); elsewhere `systemd-inhibit … cat`, whose `cat` reads a pipe from the host and
 * ends, releasing the inhibitor, when the pipe closes with the host.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Logger } from '../log/index.js';

/** A held assertion; `release` ends it. */
export interface SleepAssertion {
  /** The assertion process's pid. */
  readonly pid: number | undefined;
  release(): void;
}

/** The command that holds sleep off on this machine. */
export interface SleepTool {
  command: string;
  args: string[];
}

function onPath(name: string, env: NodeJS.ProcessEnv): boolean {
  return (env['PATH'] ?? '').split(delimiter).some((folder) => {
    try {
      accessSync(join(folder, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** `caffeinate` on macOS, `systemd-inhibit` where it is on PATH, else null. */
export function sleepTool(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): SleepTool | null {
  if (platform === 'darwin') {
    // -i: no idle sleep (a Mac mini's lid cannot close); -w: until the host's pid ends.
    return { command: 'caffeinate', args: ['-i', '-w', String(process.pid)] };
  }
  if (!onPath('systemd-inhibit', env)) return null;
  return {
    command: 'systemd-inhibit',
    args: [
      '--what=sleep:idle',
      '--who=Tether',
      '--why=A Tether run is working or waiting for approval',
      '--mode=block',
      'cat',
    ],
  };
}

/** Starts `tool`; a failure to start or an early exit is logged, never thrown. */
export function holdSleepAssertion(tool: SleepTool, log: Logger): SleepAssertion {
  const child = spawn(tool.command, tool.args, { stdio: ['pipe', 'ignore', 'pipe'] });
  let released = false;
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 2000) stderr += chunk;
  });
  child.stdin.on('error', () => {
    // EPIPE when it has exited already; its exit is logged below.
  });
  child.on('error', (error) => {
    log.warn('cannot keep the machine awake', { command: tool.command, error: error.message });
  });
  child.on('exit', (code, signal) => {
    if (released) return;
    log.warn('the sleep assertion ended on its own: the machine may sleep during runs', {
      command: tool.command,
      code,
      signal,
      stderr: stderr.trim(),
    });
  });
  return {
    pid: child.pid,
    release() {
      if (released) return;
      released = true;
      child.stdin.end();
      child.kill('SIGTERM');
    },
  };
}
