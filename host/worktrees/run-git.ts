/**
 * Running git for the host itself, outside any sandbox, on folders a run has written:
 * no hook runs (`core.hooksPath` is `/dev/null`: a run could have written the `.husky`
 * folder a relative hooks path names), no file-system monitor, no pager, no prompt, no
 * external diff or text conversion, no filter driver (a run's `.gitattributes` can name,
 * for any file, a clean or smudge program the user's git config defines: git-lfs), and the
 * repository always named by the host (never found from a `.git` file the run could have
 * rewritten).
 */
import { execFile, execFileSync } from 'node:child_process';

/** Options every host git command gets, before its own. */
const HARDENED: readonly string[] = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.pager=cat',
  '-c',
  'diff.external=',
  '-c',
  'gc.auto=0',
  '-c',
  'maintenance.auto=false',
];

/** What a git command printed and how it exited. */
export interface GitOutput {
  stdout: string;
  stderr: string;
  /** Exit status; null when it was killed. */
  code: number | null;
  /** True when git printed more than `maxBytes`: it was stopped, `stdout` is its beginning. */
  cut?: boolean;
}

/** How a git command runs: extra environment, a signal that stops it, its output's cap. */
export interface GitOptions {
  env?: Record<string, string>;
  signal?: AbortSignal;
  /** Most bytes of output read (64 MiB unless said): past it git is stopped. */
  maxBytes?: number;
}

/** Where a git command runs: `git -C folder`, or an explicit git folder and work tree. */
export type GitPlace = { folder: string } | { gitDir: string; workTree: string };

/** Largest output the host reads from one git command (a diff of a big change). */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

function placeArgs(place: GitPlace): string[] {
  return 'folder' in place
    ? ['-C', place.folder]
    : [`--git-dir=${place.gitDir}`, `--work-tree=${place.workTree}`, '-C', place.workTree];
}

/** The environment git runs with: the host's, without variables that redirect git. */
function gitEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('GIT_') && key !== 'GIT_EXEC_PATH') continue;
    env[key] = value;
  }
  return { ...env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', ...extra };
}

/** The config question that lists the filter drivers git's config defines in a place. */
const FILTER_SETTINGS: readonly string[] = [
  'config',
  '-z',
  '--name-only',
  '--get-regexp',
  '^filter\\.',
];

/**
 * Each filter driver `listing` (the answer to {@link FILTER_SETTINGS}) names, switched
 * off for one command: no clean, smudge or process program, not required. As
 * `GIT_CONFIG_*` variables, which win over every config file and, unlike `-c`, take a
 * driver name holding an `=`; git passes them on to the git commands it starts itself.
 */
function filtersOff(listing: string): Record<string, string> {
  const drivers = new Set(
    listing
      .split('\0')
      .filter((name) => name.startsWith('filter.') && name.lastIndexOf('.') > 'filter'.length)
      .map((name) => name.slice('filter.'.length, name.lastIndexOf('.'))),
  );
  const env: Record<string, string> = {};
  let count = 0;
  for (const driver of drivers) {
    for (const [key, value] of [
      ['clean', ''],
      ['smudge', ''],
      ['process', ''],
      ['required', 'false'],
    ] as const) {
      env[`GIT_CONFIG_KEY_${count}`] = `filter.${driver}.${key}`;
      env[`GIT_CONFIG_VALUE_${count}`] = value;
      count += 1;
    }
  }
  return count === 0 ? {} : { ...env, GIT_CONFIG_COUNT: String(count) };
}

/**
 * Runs git and resolves with its output, whatever its exit status: first the config
 * question that finds the filter drivers to switch off, then the command.
 */
export async function runGit(
  place: GitPlace,
  args: readonly string[],
  options: GitOptions = {},
): Promise<GitOutput> {
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  const listing = await execGit(place, FILTER_SETTINGS, signal);
  const filters = listing.code === 0 ? filtersOff(listing.stdout) : {};
  return execGit(place, args, { ...options, env: { ...filters, ...options.env } });
}

function execGit(
  place: GitPlace,
  args: readonly string[],
  options: GitOptions,
): Promise<GitOutput> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...HARDENED, ...placeArgs(place), ...args],
      {
        env: gitEnvironment(options.env ?? {}),
        maxBuffer: options.maxBytes ?? MAX_OUTPUT_BYTES,
        encoding: 'utf8',
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      (error, stdout, stderr) => {
        if (error?.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
          resolve({ stdout, stderr, code: null, cut: true });
          return;
        }
        if (error !== null && typeof error.code !== 'number') {
          if (error.code === 'ENOENT') {
            reject(new Error('git is not installed (or not on the host’s PATH)'));
            return;
          }
          if (error.killed !== true && error.signal === null) {
            reject(new Error(`git did not run: ${error.message}`, { cause: error }));
            return;
          }
        }
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ stdout, stderr, code });
      },
    );
  });
}

/** Runs git and returns its trimmed output; throws with git's own message when it fails. */
export async function git(
  place: GitPlace,
  args: readonly string[],
  options: GitOptions = {},
): Promise<string> {
  const output = await runGit(place, args, options);
  if (output.code !== 0) throw new GitError(args, output);
  return output.stdout.trimEnd();
}

/** The same, synchronously: for the few quick questions asked inside a transaction. */
export function gitSync(place: GitPlace, args: readonly string[]): GitOutput {
  const listing = execGitSync(place, FILTER_SETTINGS, {});
  return execGitSync(place, args, listing.code === 0 ? filtersOff(listing.stdout) : {});
}

function execGitSync(
  place: GitPlace,
  args: readonly string[],
  env: Record<string, string>,
): GitOutput {
  try {
    const stdout = execFileSync('git', [...HARDENED, ...placeArgs(place), ...args], {
      env: gitEnvironment(env),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 10_000,
    });
    return { stdout, stderr: '', code: 0 };
  } catch (error) {
    const failed = error as { status?: number | null; stdout?: string; stderr?: string };
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { stdout: '', stderr: 'git is not installed (or not on the host’s PATH)', code: 127 };
    }
    return {
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? '',
      code: typeof failed.status === 'number' ? failed.status : null,
    };
  }
}

/** A git command that failed: its arguments and what git said. */
export class GitError extends Error {
  readonly output: GitOutput;
  constructor(args: readonly string[], output: GitOutput) {
    const said = output.stderr.trim().split('\n').slice(-3).join(' ') || `exit ${output.code}`;
    super(`git ${args[0] ?? ''} failed: ${said}`);
    this.name = 'GitError';
    this.output = output;
  }
}
