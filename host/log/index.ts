/**
 * host/log: the structured, redacting logger of the host.
 */
export { createLogger, logFilePath } from './logger.js';
export { LOG_LEVELS } from './types.js';
export type { LogFields, LogLevel, Logger, LoggerOptions, LogSink } from './types.js';
