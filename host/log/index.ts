/**
 * host/log: the structured, redacting logger of the host.
 */
export { childLines } from './child-lines.js';
export { createLogger } from './logger.js';
export { isSecretFieldName, Redactor } from './redaction.js';
export { LOG_LEVELS } from './types.js';
export type { LogFields, LogLevel, Logger, LogRotation } from './types.js';
