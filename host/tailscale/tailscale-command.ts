/**
 * Running the `tailscale` command: found on PATH, or inside the Mac app when its command
 * line tool was never installed. Every call is bounded in time: `tailscale serve` can
 * wait for a feature to be turned on in the admin console, and must not hang a start.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The Mac app's own copy of the command (the App Store and standalone variants). */
const MAC_APP_CLI = '/Applications/Tailscale.app/Contents/MacOS/Tailscale';

/** What one `tailscale …` call did. */
export interface TailscaleRun {
  /** 0 on success; the exit status otherwise (1 when killed at the deadline). */
  code: number;
  stdout: string;
  stderr: string;
  /** Killed at the deadline. */
  timedOut: boolean;
}

/** Where `tailscale` is, as a path the service can run too; null when it is not installed. */
export function findTailscale(
  searchPath: string = process.env['PATH'] ?? '',
  platform: NodeJS.Platform = process.platform,
): string | null {
  const candidates = searchPath
    .split(delimiter)
    .filter((dir) => dir !== '')
    .map((dir) => join(dir, 'tailscale'));
  if (platform === 'darwin') candidates.push(MAC_APP_CLI);
  return (
    candidates.find((path) => {
      try {
        accessSync(path, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    }) ?? null
  );
}

/** Runs `program args…`, killed after `timeoutMs`; never rejects. */
export function runTailscale(
  program: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<TailscaleRun> {
  return new Promise((resolve) => {
    execFile(
      program,
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 8 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const failure = error as (NodeJS.ErrnoException & { killed?: boolean }) | null;
        const code = failure?.code;
        resolve({
          code: failure === null ? 0 : typeof code === 'number' ? code : 1,
          stdout,
          stderr: failure !== null && stderr === '' && !failure.killed ? failure.message : stderr,
          timedOut: failure?.killed === true,
        });
      },
    );
  });
}

/** The command as a person would type it, for messages. */
export function commandLine(args: readonly string[]): string {
  return ['tailscale', ...args].join(' ');
}
