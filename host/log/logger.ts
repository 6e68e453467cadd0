/**
 * The host's structured logger: JSON lines to stderr and to `<dataDir>/logs/host.log`.
 */
import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Redactor } from './redaction.js';
import { LOG_LEVELS } from './types.js';
import type { LogFields, LogLevel, Logger, LoggerOptions, LogSink } from './types.js';

/** State shared by a logger and all its children. */
interface LogOutput {
  readonly redactor: Redactor;
  readonly minRank: number;
  readonly sink: LogSink;
  readonly now: () => Date;
  fd: number | null;
}

/** Path of the log file inside a data directory. */
export function logFilePath(dataDir: string): string {
  return join(dataDir, 'logs', 'host.log');
}

/**
 * Opens the logger. With `dataDir`, creates `logs/` (0700) and opens `host.log` for
 * appending (0600, tightened if it already existed looser); throws if that fails.
 */
export function createLogger(options: LoggerOptions): Logger {
  const output: LogOutput = {
    redactor: new Redactor(),
    minRank: LOG_LEVELS.indexOf(options.level),
    sink: options.sink ?? process.stderr,
    now: options.now ?? (() => new Date()),
    fd: options.dataDir ? openLogFile(options.dataDir) : null,
  };
  return boundLogger(output, {});
}

function openLogFile(dataDir: string): number {
  const path = logFilePath(dataDir);
  const folder = join(dataDir, 'logs');
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
  const fd = openSync(path, 'a', 0o600);
  fchmodSync(fd, 0o600);
  return fd;
}

function boundLogger(output: LogOutput, bound: LogFields): Logger {
  const log = (level: LogLevel, msg: string, fields: LogFields = {}): void => {
    if (LOG_LEVELS.indexOf(level) < output.minRank) return;
    const { redactor } = output;
    const { at: _at, level: _level, msg: _msg, ...rest } = redactor.fields({ ...bound, ...fields });
    const entry = { at: output.now().toISOString(), level, msg: redactor.text(msg), ...rest };
    write(output, `${JSON.stringify(entry)}\n`);
  };
  return {
    debug: (msg, fields) => log('debug', msg, fields),
    info: (msg, fields) => log('info', msg, fields),
    warn: (msg, fields) => log('warn', msg, fields),
    error: (msg, fields) => log('error', msg, fields),
    child: (fields) => boundLogger(output, { ...bound, ...fields }),
    registerSecret: (secret) => output.redactor.register(secret),
    close: () => {
      if (output.fd === null) return;
      closeSync(output.fd);
      output.fd = null;
    },
  };
}

function write(output: LogOutput, line: string): void {
  output.sink.write(line);
  if (output.fd === null) return;
  try {
    writeSync(output.fd, line);
  } catch (error) {
    // A full disk must not take the host down: say so once on the sink and stop writing the file.
    closeSync(output.fd);
    output.fd = null;
    const reason = error instanceof Error ? error.message : String(error);
    const notice = { at: output.now().toISOString(), level: 'error', msg: 'log file write failed' };
    output.sink.write(`${JSON.stringify({ ...notice, reason: output.redactor.text(reason) })}\n`);
  }
}
