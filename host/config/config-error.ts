/**
 * The error of a configuration that cannot be used.
 */
import type { ConfigIssue } from './types.js';

/** `source: field: message`, e.g. `command line: --port: expected an integer from 0 to 65535`. */
function formatIssue(issue: ConfigIssue): string {
  return `${issue.source}: ${issue.field}: ${issue.message}`;
}

/**
 * Thrown at start when the configuration cannot be used. Lists every problem found, not
 * just the first; the message has one line per issue. Never sent on the wire.
 */
export class ConfigError extends Error {
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[]) {
    const lines = issues.map((issue) => `  ${formatIssue(issue)}`);
    super(`invalid configuration:\n${lines.join('\n')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}
