/**
 * The host's structured logger: JSON lines to stderr and to `<dataDir>/logs/host.log`,
 * each entry cut to its bounds, the file rotated by size.
 */
import {
  chmodSync,
  closeSync,
  fchmodSync,
  fstatSync,
  mkdirSync,
  openSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  boundShapes,
  boundStrings,
  boundText,
  DEFAULT_LOG_BOUNDS,
  type LogBounds,
} from './log-bounds.js';
import { Redactor } from './redaction.js';
import { LOG_LEVELS } from './types.js';
import type { LogFields, LogLevel, Logger, LoggerOptions, LogRotation, LogSink } from './types.js';
import { errorMessage } from '../../protocol/index.js';

/** 10 MiB a file, three old files: at most 40 MiB of log. */
const DEFAULT_LOG_ROTATION: LogRotation = { maxFileBytes: 10 * 1024 * 1024, keepFiles: 3 };

/** The open `host.log` and how many bytes it holds. */
interface LogFile {
  readonly path: string;
  fd: number;
  size: number;
}

/** State shared by a logger and all its children. */
interface LogOutput {
  readonly redactor: Redactor;
  readonly minRank: number;
  readonly sink: LogSink;
  readonly now: () => Date;
  readonly bounds: LogBounds;
  readonly rotation: LogRotation;
  file: LogFile | null;
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
    bounds: { ...DEFAULT_LOG_BOUNDS, ...options.bounds },
    rotation: { ...DEFAULT_LOG_ROTATION, ...options.rotation },
    file: options.dataDir ? openLogFile(options.dataDir) : null,
  };
  return boundLogger(output, {});
}

function openLogFile(dataDir: string): LogFile {
  const path = logFilePath(dataDir);
  const folder = join(dataDir, 'logs');
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
  return openAt(path);
}

function openAt(path: string): LogFile {
  const fd = openSync(path, 'a', 0o600);
  fchmodSync(fd, 0o600);
  return { path, fd, size: fstatSync(fd).size };
}

function boundLogger(output: LogOutput, bound: LogFields): Logger {
  const log = (level: LogLevel, msg: string, fields: LogFields = {}): void => {
    if (LOG_LEVELS.indexOf(level) < output.minRank) return;
    const { redactor, bounds } = output;
    // Shapes are cut before masking (cheap, and whole items cannot split a secret),
    // strings after (a cut string could have held half a secret).
    const shaped = boundShapes({ ...bound, ...fields }, bounds);
    const { at: _at, level: _level, msg: _msg, ...rest } = redactor.fields(shaped);
    const at = output.now().toISOString();
    const text = boundText(redactor.text(msg), bounds.maxStringChars);
    const cut = boundStrings(rest, bounds) as Record<string, unknown>;
    let line = JSON.stringify({ at, level, msg: text, ...cut });
    if (Buffer.byteLength(line) > bounds.maxLineBytes) {
      line = JSON.stringify({ at, level, msg: text, cut: `a line of ${line.length} chars` });
    }
    write(output, `${line}\n`);
  };
  return {
    debug: (msg, fields) => log('debug', msg, fields),
    info: (msg, fields) => log('info', msg, fields),
    warn: (msg, fields) => log('warn', msg, fields),
    error: (msg, fields) => log('error', msg, fields),
    child: (fields) => boundLogger(output, { ...bound, ...fields }),
    registerSecret: (secret) => output.redactor.register(secret),
    close: () => {
      if (output.file === null) return;
      closeSync(output.file.fd);
      output.file = null;
    },
  };
}

/** `host.log.K` → `host.log.K+1` from the oldest down, `host.log` → `host.log.1`, a new `host.log`. */
function rotate(file: LogFile, keepFiles: number): void {
  closeSync(file.fd);
  file.fd = -1;
  for (let k = keepFiles - 1; k >= 1; k--) {
    try {
      renameSync(`${file.path}.${k}`, `${file.path}.${k + 1}`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  if (keepFiles > 0) renameSync(file.path, `${file.path}.1`);
  const fresh = keepFiles > 0 ? openAt(file.path) : openTruncated(file.path);
  file.fd = fresh.fd;
  file.size = fresh.size;
}

function openTruncated(path: string): LogFile {
  const fd = openSync(path, 'w', 0o600);
  fchmodSync(fd, 0o600);
  return { path, fd, size: 0 };
}

function write(output: LogOutput, line: string): void {
  output.sink.write(line);
  const { file } = output;
  if (file === null) return;
  const bytes = Buffer.byteLength(line);
  try {
    if (file.size > 0 && file.size + bytes > output.rotation.maxFileBytes) {
      rotate(file, output.rotation.keepFiles);
    }
    writeSync(file.fd, line);
    file.size += bytes;
  } catch (error) {
    // A full disk must not take the host down: say so once on the sink and stop writing the file.
    if (file.fd >= 0) closeSync(file.fd);
    output.file = null;
    const reason = errorMessage(error);
    const notice = { at: output.now().toISOString(), level: 'error', msg: 'log file write failed' };
    output.sink.write(`${JSON.stringify({ ...notice, reason: output.redactor.text(reason) })}\n`);
  }
}
