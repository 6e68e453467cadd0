/**
 * The built `tether` command as a child process, for the CLI tests (npm test builds first).
 */
import { spawn } from 'node:child_process';
import { pathWithForeignTether } from '../support/foreign-tether.js';

const bin = new URL('../../bin/tether.js', import.meta.url).pathname;

/** How a finished command ended. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A command still running: its output so far, and a way to wait for a line. */
export interface RunningCli {
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` on stdout (now or later). */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  signal(name: NodeJS.Signals): void;
  exit: Promise<CliResult>;
}

/**
 * Starts `tether <args>` with only PATH and HOME (`home`) from the environment; PATH has a
 * foreign `tether` first (test/support/foreign-tether.ts), so hints name this clone's
 * `node …/bin/tether.js` whether or not `tether` is installed on the machine.
 */
export function startTether(
  args: readonly string[],
  home: string,
  env: Record<string, string> = {},
): RunningCli {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { PATH: pathWithForeignTether(), HOME: home, ...env },
  });
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const check of waiters) check();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<CliResult>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stdout);
          if (match === null) return;
          waiters.delete(check);
          resolve(match);
        };
        waiters.add(check);
        check();
        void exit.then(() => {
          if (!waiters.has(check)) return;
          waiters.delete(check);
          reject(new Error(`exited before printing ${pattern}:\n${stdout}\n${stderr}`));
        });
      });
    },
    signal: (name) => child.kill(name),
    exit,
  };
}

/** Runs `tether <args>` to its end. */
export function runTether(
  args: readonly string[],
  home: string,
  env: Record<string, string> = {},
): Promise<CliResult> {
  return startTether(args, home, env).exit;
}
