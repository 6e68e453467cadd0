/**
 * host/log: the structured, redacting logger of the host.
 */
export { createLogger, logFilePath } from './logger.js';
export type { LogBounds } from './log-bounds.js';
export { Redactor } from './redaction.js';
export { LOG_LEVELS } from './types.js';
export type { LogFields, LogLevel, Logger, LoggerOptions, LogRotation, LogSink } from './types.js';
