/**
 * The environment of a command that runs without anyone having approved it (an allow
 * rule let it through): the code paths by which a repository in the workspace could make
 * an allowed command run a program of its own are switched off (docs/policy.md,
 * "Commands that run unattended").
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '../sandbox/index.js';

/**
 * Git settings given on the command line (`GIT_CONFIG_COUNT`), which win over every
 * config file, the repository's own included:
 * - `safe.bareRepository=explicit`: a folder laid out as a bare repository (`HEAD`,
 *   `config`, `objects/`) is not used unless named by `--git-dir`, so an embedded
 *   `evil/config` is never read;
 * - `core.fsmonitor=false`: the fsmonitor hook, a program `git status` would run;
 * - `core.hooksPath=/dev/null`: no hook runs (post-checkout, pre-commit, …);
 * - `core.pager=cat`: no configured pager (`less` with its own `LESSOPEN`, or any program).
 */
const UNATTENDED_GIT_CONFIG: readonly (readonly [string, string])[] = [
  ['safe.bareRepository', 'explicit'],
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
];

/**
 * `base` made safe for a command that runs unattended in `workspace`: the git settings
 * above, pagers and prompts off, no repository discovered above the workspace, and `PATH`
 * without entries that are empty, relative or inside the workspace (so `git` is never a
 * program the workspace supplies).
 */
export function unattendedEnvironment(
  base: Readonly<Record<string, string>>,
  workspace: string,
): Record<string, string> {
  const env: Record<string, string> = { ...base };
  env.GIT_CONFIG_COUNT = String(UNATTENDED_GIT_CONFIG.length);
  UNATTENDED_GIT_CONFIG.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  env.GIT_PAGER = 'cat';
  env.PAGER = 'cat';
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_EDITOR = 'false';
  // git looks for a repository no higher than the workspace: one above it would show
  // (and let git act on) files outside the workspace.
  env.GIT_CEILING_DIRECTORIES = path.dirname(workspace);
  if (base.PATH !== undefined) env.PATH = pathOutsideWorkspace(base.PATH, workspace);
  return env;
}

function pathOutsideWorkspace(searchPath: string, workspace: string): string {
  return searchPath
    .split(':')
    .filter((entry) => path.isAbsolute(entry) && !isInside(realOrSelf(entry), workspace))
    .join(':');
}

function realOrSelf(entry: string): string {
  try {
    return realpathSync(entry);
  } catch {
    return path.resolve(entry);
  }
}
