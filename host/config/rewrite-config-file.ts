/**
 * The config file changed by a command (`tether model set`, `tether voice set`): read as
 * JSON, edited, validated as the host would read it, and written back atomically with its
 * mode kept (a new file is 0600).
 */
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { ConfigError } from './config-error.js';
import { ConfigFile, parseSource } from './schema.js';
import type { ConfigIssue } from './types.js';
import { errorMessage } from '../../protocol/index.js';

/**
 * Applies `edit` to the config file at `path` (an empty object when there is none) and
 * writes the result back.
 *
 * @throws ConfigError when the file cannot be read as a config file or the result would
 *   not be valid; nothing is written then.
 */
export function rewriteConfigFile(
  path: string,
  edit: (current: Record<string, unknown>) => Record<string, unknown>,
): void {
  const source = `config file ${path}`;
  const issues: ConfigIssue[] = [];
  let current: Record<string, unknown> = {};
  let mode = 0o600;
  let text: string | null = null;
  try {
    text = readFileSync(path, 'utf8');
    mode = statSync(path).mode & 0o777;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') {
      throw new ConfigError([{ source, field: '(file)', message: `cannot read: ${code}` }]);
    }
  }
  if (text !== null) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      const reason = errorMessage(error);
      throw new ConfigError([{ source, field: '(file)', message: `not valid JSON: ${reason}` }]);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      throw new ConfigError([{ source, field: '(root)', message: 'expected a JSON object' }]);
    }
    current = json as Record<string, unknown>;
  }
  const next = edit(current);
  if (parseSource(ConfigFile, next, source, issues) === undefined || issues.length > 0) {
    throw new ConfigError(issues);
  }
  const temp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(next, null, 2)}\n`, { mode, flag: 'wx' });
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError([{ source, field: '(file)', message: `cannot write: ${code}` }]);
  }
}
