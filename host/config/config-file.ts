/**
 * Reading the JSON config file.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigFile, parseSource } from './schema.js';
import type { ConfigIssue } from './types.js';
import { errorMessage } from '../../protocol/index.js';

/** A config file that was found and read. */
export interface LoadedConfigFile {
  path: string;
  /** `config file /path`: the source named in issues. */
  source: string;
  settings: ConfigFile;
  /** True when no one but the owner may read it (mode 0600 or stricter). */
  isPrivate: boolean;
}

/**
 * Reads and validates the config file at `path`. A missing file is an issue only when
 * `required` (given with `--config`); otherwise the result is null.
 */
export function readConfigFile(
  path: string,
  required: boolean,
  issues: ConfigIssue[],
): LoadedConfigFile | null {
  const source = `config file ${path}`;
  let text: string;
  let mode: number;
  try {
    mode = statSync(path).mode;
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !required) return null;
    if (code === 'ENOTDIR' && !required) {
      // The default config file lives in the data directory: the data path is the problem.
      issues.push({
        source: 'data directory',
        field: dirname(path),
        message: 'cannot be the data directory: a file is in its place or on its path (ENOTDIR)',
      });
      return null;
    }
    const message = code === 'ENOENT' ? 'not found' : `cannot read: ${code ?? String(error)}`;
    issues.push({ source, field: '(file)', message });
    return null;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const reason = errorMessage(error);
    issues.push({ source, field: '(file)', message: `not valid JSON: ${reason}` });
    return null;
  }
  const settings = parseSource(ConfigFile, json, source, issues) ?? {};
  return { path, source, settings, isPrivate: (mode & 0o077) === 0 };
}
