/**
 * Files and folders a repository's config makes git run or read as config, named inside
 * the config itself: `core.hooksPath` (husky keeps hooks in `.husky`) and the `path` of an
 * `[include]` or `[includeIf …]` section. When they lie in the workspace, the sandbox keeps
 * them read-only like `.git/hooks` and `.git/config`.
 */
import { homedir } from 'node:os';
import path from 'node:path';

/**
 * The absolute paths `configText` (the config file at `configFile`, of the repository whose
 * work tree is `workTree`) names as hooks or included config. A relative hooks path is
 * taken from the work tree, as git runs hooks there; a relative include from the config
 * file's folder; `~/` from the home folder.
 */
export function gitConfigTargets(
  configText: string,
  configFile: string,
  workTree: string,
): string[] {
  const targets: string[] = [];
  let section = '';
  for (const raw of configText.split('\n')) {
    const line = raw.trim();
    const header = /^\[([^\]]*)\](.*)$/.exec(line);
    let body = line;
    if (header !== null) {
      section = (header[1] ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
      body = (header[2] ?? '').trim();
    }
    const setting = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$/.exec(body);
    if (setting === null) continue;
    const key = (setting[1] ?? '').toLowerCase();
    const value = unquote((setting[2] ?? '').replace(/\s[#;].*$/, '').trim());
    if (value === '') continue;
    if (section === 'core' && key === 'hookspath') {
      targets.push(resolve(value, workTree));
    } else if ((section === 'include' || section === 'includeif') && key === 'path') {
      targets.push(resolve(value, path.dirname(configFile)));
    }
  }
  return targets;
}

function resolve(value: string, from: string): string {
  if (value.startsWith('~/')) return path.join(homedir(), value.slice(2));
  return path.resolve(from, value);
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"')
    ? value.slice(1, -1)
    : value;
}
