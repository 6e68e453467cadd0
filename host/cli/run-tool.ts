/**
 * Running a system tool (`launchctl`, `systemctl`) to its end and keeping what it printed.
 */
import { spawn } from 'node:child_process';

/** How a tool ended and what it printed. */
export interface ToolOutcome {
  /** The exit code; null when the tool was not found or was killed. */
  code: number | null;
  stdout: string;
  stderr: string;
}

const TIMEOUT_MS = 30_000;

/** Runs `command args…` found on PATH, without a shell; never rejects. */
export function runTool(command: string, args: readonly string[]): Promise<ToolOutcome> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: TIMEOUT_MS });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'ENOENT' ? `${command} was not found on PATH` : error.message;
      resolve({ code: null, stdout, stderr: stderr + reason });
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The last line a failed tool printed, for an error message. */
export function lastLine(outcome: ToolOutcome): string {
  return (outcome.stderr.trim() || outcome.stdout.trim()).split('\n').at(-1) ?? '';
}
