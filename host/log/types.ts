/**
 * Contracts of the host's structured log.
 */
import type { LogBounds } from './log-bounds.js';

/** Log levels, least to most severe. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Structured fields of one entry; they are redacted before anything is written. */
export type LogFields = Record<string, unknown>;

/** Where finished lines go besides the log file (stderr by default; a buffer in tests). */
export interface LogSink {
  write(line: string): unknown;
}

export interface LoggerOptions {
  /** Entries below this level are dropped. */
  level: LogLevel;
  /** When set, lines are also appended to `<dataDir>/logs/host.log` (0600, folder 0700). */
  dataDir?: string | null;
  /** Defaults to `process.stderr`. */
  sink?: LogSink;
  /** Clock for `at`; defaults to the system clock. */
  now?: () => Date;
  /** How much of each field an entry keeps (defaults: `DEFAULT_LOG_BOUNDS`). */
  bounds?: Partial<LogBounds>;
  /** When `host.log` is rotated, and how many old files are kept (defaults: `DEFAULT_LOG_ROTATION`). */
  rotation?: Partial<LogRotation>;
}

/**
 * Size rotation of `host.log`: before a line would take it past `maxFileBytes`, `host.log.K`
 * becomes `host.log.K+1` (the oldest, `host.log.<keepFiles>`, is dropped), `host.log`
 * becomes `host.log.1`, and a new `host.log` is started. At most
 * `(keepFiles + 1) × maxFileBytes` of log is kept.
 */
export interface LogRotation {
  maxFileBytes: number;
  keepFiles: number;
}

/**
 * One JSON line per entry: `{"at":iso,"level":…,"msg":…,…fields}`, to the sink and the log
 * file. Fields named like a secret (`apiKey`, `authorization`, `secret`, `seed`, `sk`,
 * `token`, `psk`, `password`) are masked as `"***"`, and so is every occurrence of a
 * registered secret in any string of the line. Fields named `at`, `level` or `msg` are
 * ignored: those three always describe the entry. Every entry is cut to its bounds
 * (`LoggerOptions.bounds`) after masking, saying what was left out.
 */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every entry and shares this one's file and secrets. */
  child(fields: LogFields): Logger;
  /**
   * Masks `secret` wherever it appears from now on, in this logger and all its relatives.
   * Bytes are registered in their base64url, base64 and hex forms. Secrets shorter than
   * 8 characters are not matched as text (they would mask ordinary words); fields named
   * like a secret are still masked.
   */
  registerSecret(secret: string | Uint8Array): void;
  /** Closes the log file. Later entries still reach the sink. */
  close(): void;
}
