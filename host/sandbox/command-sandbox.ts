/**
 * The sandbox one command runs in: its plan made from the workspace, the call's request
 * and a walk for secrets; the command line that starts it inside; and, after the call,
 * which protected paths it changed where the sandbox could not refuse it.
 */
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CommandSandbox as CommandSandboxScope } from '../../protocol/index.js';
import { bwrapCommand } from './bwrap-args.js';
import { withoutCredentials } from './git-config-credentials.js';
import { seatbeltCommand } from './seatbelt-profile.js';
import { gitConfigTargets } from './git-config-targets.js';
import { keyringFilter } from './keyring-filter.js';
import { hostPatterns, startNetworkFilter, type NetworkFilter } from './network-filter.js';
import {
  changedSecrets,
  GIT_CODE_ENTRIES,
  GIT_REDIRECT_ENTRIES,
  snapshotSecrets,
} from './secret-walk.js';
import type {
  ReplacedFile,
  SandboxPlan,
  SandboxRequest,
  SandboxStatus,
  WrappedCommand,
} from './types.js';
import { isInside } from './path-inside.js';
import { removeTree } from './remove-tree.js';

/**
 * What of the home folder stays readable in an emptied one: the folders of programs and
 * libraries commands run from (version managers, toolchains), never a whole tool's
 * folder that also keeps credentials (`.cargo` has `credentials.toml`: only its `bin`),
 * and git's own settings (shown without credentials, like `.git/config`).
 */
/** Names of git config files: a repository's, and the user's. */
const GIT_CONFIG_NAMES: readonly string[] = ['config', '.gitconfig'];

const HOME_TOOLCHAINS: readonly string[] = [
  '.nvm',
  '.volta',
  '.fnm',
  '.bun/bin',
  '.deno/bin',
  '.local/bin',
  '.local/lib',
  '.cargo/bin',
  '.rustup',
  '.pyenv',
  '.rbenv',
  '.sdkman/candidates',
  '.npm-global',
  'go/bin',
  '.gitconfig',
  '.config/git/config',
  '.config/git/ignore',
];

/**
 * Entries the walk for secrets looks at before it gives up (then an unattended call fails,
 * and an approved one says secrets past it were not hidden).
 */
const DEFAULT_MAX_ENTRIES = 100_000;

/** What the sandbox hides: the policy's secret set, the host's own files. */
export interface SecretSet {
  /** True for an absolute real path no command may read or write. */
  isSecret(absolute: string): boolean;
  /**
   * Secret files and folders hidden wherever they are, walked or not: the stores in the
   * home folder (`~/.ssh`, `~/.aws`, …), the host's data directory and config file.
   */
  fixedPaths: readonly string[];
  /** The same set as POSIX regular expressions on an absolute path (Seatbelt). */
  patterns: readonly string[];
}

/** A command's sandbox, ready to start it. */
export interface PreparedSandbox {
  plan: SandboxPlan;
  /** True when the walk for secrets stopped at its cap: some may not be hidden. */
  capped: boolean;
  /** The command line that runs `argv` in `cwd` inside the sandbox. */
  wrap(argv: readonly string[], cwd: string): WrappedCommand;
  /**
   * After the call: the protected paths (secrets, what makes git run code) it created,
   * changed or removed (sorted), and of those the entries by which git would follow a
   * repository elsewhere (`commondir`, `gitdir`, `config.worktree`) that it added, which
   * are removed again; then the proxy to its hosts is closed and the call's temporary
   * folder removed.
   */
  finish(): { changed: string[]; removed: string[] };
}

/** The machine's sandbox: what the card says of a command, and its preparation. */
export class Sandbox {
  readonly status: SandboxStatus;
  readonly #secretsFor: (workspace: string) => Promise<SecretSet>;
  readonly #maxEntries: number;
  readonly #home: string;

  constructor(
    status: SandboxStatus,
    secretsFor: (workspace: string) => Promise<SecretSet>,
    home: string,
    maxEntries = DEFAULT_MAX_ENTRIES,
  ) {
    this.status = status;
    this.#secretsFor = secretsFor;
    this.#home = home;
    this.#maxEntries = maxEntries;
  }

  /**
   * The approval card's account of where a command with `request` would run; a workspace
   * of null leaves out the folder of its own a process gets (an MCP server's).
   */
  scope(workspace: string | null, request: SandboxRequest | undefined): CommandSandboxScope {
    if (!this.status.available) return { contained: false, reason: this.status.reason };
    const hosts = request?.hosts;
    return {
      contained: true,
      kind: this.status.kind,
      writable: [...(workspace === null ? [] : [workspace]), ...(request?.write ?? [])],
      network: hosts === undefined ? request?.network === true : hosts.length > 0,
      ...(hosts === undefined || hosts.length === 0 ? {} : { networkHosts: [...hosts] }),
    };
  }

  /**
   * The sandbox of one command in `workspace` (a real path) with `request` (its write
   * paths real and existing); `onRefusedHost` hears each `host:port` the proxy to
   * `request.hosts` refused. Throws when the sandbox is not available (callers check
   * `status` first) or its proxy cannot listen.
   */
  async prepare(
    workspace: string,
    request: SandboxRequest | undefined,
    onRefusedHost: (target: string) => void = () => undefined,
  ): Promise<PreparedSandbox> {
    const status = this.status;
    if (!status.available) throw new Error(`no sandbox: ${status.reason}`);
    const patterns = hostPatterns(request?.hosts ?? []);
    const secrets = await this.#secretsFor(workspace);
    const writable = [workspace, ...(request?.write ?? [])];
    const readable = request?.read ?? [];
    const gitReadOnly = request?.gitReadOnly ?? [];
    stillReal([...(request?.write ?? []), ...readable]);
    const isSecret = (absolute: string) => secrets.isSecret(absolute);
    const before = snapshotSecrets(writable, isSecret, this.#maxEntries);
    // Secrets in the folders a config names readable (an agent's or MCP server's) are
    // hidden as in the writable ones; a folder that holds a writable one is walked twice.
    const readSecrets =
      readable.length === 0 ? null : snapshotSecrets(readable, isSecret, this.#maxEntries);
    // Real path: macOS's temporary folder is under /var, a symlink to /private/var.
    const callDir = realpathSync(mkdtempSync(path.join(tmpdir(), 'tether-call-')));
    const tempDir = path.join(callDir, 'tmp');
    mkdirSync(tempDir, { mode: 0o700 });
    const home = emptiedHome(this.#home, writable);
    const replaced = replacedGitConfigs([
      ...before.gitCode,
      ...(readSecrets?.gitCode ?? []),
      ...(home?.readable ?? []),
      ...gitReadOnly.map((gitDir) => path.join(gitDir, 'config')),
    ]);
    const replacedFiles = replaced.map((file, i) => {
      const source = path.join(callDir, `replaced-${i}`);
      writeFileSync(source, file.content, { mode: 0o400 });
      return source;
    });
    const filter = status.kind === 'bwrap' ? keyringFilter(process.arch) : null;
    let seccompFile: string | null = null;
    if (filter !== null) {
      seccompFile = path.join(callDir, 'keyring.bpf');
      writeFileSync(seccompFile, filter, { mode: 0o400 });
    }
    let network: NetworkFilter | null = null;
    if (patterns.length > 0) {
      try {
        network = await startNetworkFilter(status.kind, patterns, tempDir, onRefusedHost);
      } catch (error) {
        removeTree(callDir);
        throw error;
      }
    }
    const plan: SandboxPlan = {
      workspace,
      writable,
      tempDir,
      readOnly: [
        ...new Set([
          ...before.gitCode,
          ...configTargets(before.gitCode, writable),
          ...(status.kind === 'seatbelt' ? gitCodeOf(writable, before.gitDirs) : []),
        ]),
      ],
      pinned: before.gitDirs.filter((gitDir) =>
        writable.some((folder) => isInside(gitDir, folder) && gitDir !== folder),
      ),
      hidden: uniqueHidden([
        ...fixedHidden(secrets.fixedPaths),
        ...before.hidden,
        ...(readSecrets?.hidden ?? []),
      ]),
      replaced,
      hiddenPatterns: secrets.patterns,
      network: request?.hosts === undefined && request?.network === true,
      proxyPort: network?.proxyPort ?? null,
      home,
      programFolders: [
        ...programFolders(process.env['PATH'] ?? '', writable),
        ...(request?.read ?? []),
        ...(network?.programFolder ? [network.programFolder] : []),
      ],
      gitReadOnly,
    };
    let finished = false;
    return {
      plan,
      capped: before.capped || readSecrets?.capped === true,
      wrap: (argv, cwd) => {
        const inside = network?.command(argv) ?? { argv: [...argv], env: undefined };
        const wrapped =
          status.kind === 'bwrap'
            ? bwrapCommand(status.program, plan, inside.argv, cwd, replacedFiles, seccompFile)
            : seatbeltCommand(plan, inside.argv);
        return inside.env === undefined ? wrapped : { ...wrapped, env: inside.env };
      },
      finish: () => {
        if (finished) return { changed: [], removed: [] };
        finished = true;
        // Seatbelt refuses protected names by pattern, new ones too: nothing to look for.
        const changed =
          status.kind === 'seatbelt'
            ? []
            : changedSecrets(before, snapshotSecrets(writable, isSecret, this.#maxEntries));
        const removed = changed.filter(
          (absolute) =>
            !before.signatures.has(absolute) &&
            GIT_REDIRECT_ENTRIES.includes(path.basename(absolute)) &&
            before.gitDirs.includes(path.dirname(absolute)) &&
            removeEntry(absolute),
        );
        network?.close();
        removeTree(callDir);
        return { changed, removed };
      },
    };
  }
}

/**
 * Throws unless each of `paths` (the request's extra folders: real paths, resolved when a
 * config was read or a call named them) still resolves to itself: bubblewrap follows a link in what it binds, so a
 * folder a run replaced by a link to `/` would show, or open, what the link names.
 */
function stillReal(paths: readonly string[]): void {
  for (const named of paths) {
    const real = realOrNull(named);
    if (real === named) continue;
    throw new Error(
      real === null
        ? `${named} no longer exists: the sandbox cannot show it`
        : `${named} now leads to ${real} (a link put in its place): the sandbox does not follow it`,
    );
  }
}

/**
 * The home folder emptied inside a bubblewrap sandbox, but for the toolchains that exist
 * in it; null when a writable folder is the home folder or holds it.
 */
function emptiedHome(home: string, writable: readonly string[]): SandboxPlan['home'] {
  const real = realOrNull(home);
  if (real === null || real === '/') return null;
  if (writable.some((folder) => isInside(real, folder))) return null;
  const readable = HOME_TOOLCHAINS.flatMap((name) => {
    const found = realOrNull(path.join(real, name));
    return found !== null && isInside(found, real) ? [found] : [];
  });
  return { path: real, readable };
}

/**
 * What makes git run code or look elsewhere in each git folder found and in each
 * writable folder's own `.git`, whether it exists or not: Seatbelt denies a path that
 * does not exist yet, so a command can neither create hooks in a repository that has
 * none nor add a `commondir` (bubblewrap can bind only what exists; the host's walk after
 * the call finds and removes those).
 */
function gitCodeOf(writable: readonly string[], gitDirs: readonly string[]): string[] {
  const folders = [...gitDirs, ...writable.map((folder) => path.join(folder, '.git'))];
  return folders.flatMap((gitDir) =>
    [...GIT_CODE_ENTRIES, ...GIT_REDIRECT_ENTRIES].map((name) => path.join(gitDir, name)),
  );
}

/**
 * What the repositories' config files among `gitCode` name as hooks or included config,
 * existing and inside a writable folder: kept read-only like the config itself.
 */
function configTargets(gitCode: readonly string[], writable: readonly string[]): string[] {
  return gitCode.flatMap((absolute) => {
    if (path.basename(absolute) !== 'config') return [];
    let text: string;
    try {
      text = readFileSync(absolute, 'utf8');
    } catch {
      return [];
    }
    const gitDir = path.dirname(absolute);
    const workTree = path.basename(gitDir) === '.git' ? path.dirname(gitDir) : gitDir;
    return gitConfigTargets(text, absolute, workTree).flatMap((target) => {
      const real = realOrNull(target);
      return real !== null && writable.some((folder) => isInside(real, folder)) ? [real] : [];
    });
  });
}

/**
 * The `PATH` folders that exist, as real paths, but for those inside a writable folder
 * (a program the workspace supplies is found there anyway) or at the root.
 */
function programFolders(searchPath: string, writable: readonly string[]): string[] {
  const found = searchPath.split(':').flatMap((entry) => {
    if (!path.isAbsolute(entry)) return [];
    const real = realOrNull(entry);
    if (real === null || real === '/') return [];
    return writable.some((folder) => isInside(real, folder)) ? [] : [real];
  });
  return [...new Set(found)];
}

/** Removes an entry a call added; false when it cannot be. */
function removeEntry(absolute: string): boolean {
  try {
    rmSync(absolute, { recursive: true, force: true });
    return true;
  } catch {
    return false;
  }
}

/** The fixed secret paths as hidden entries: folders and files that exist now. */
function fixedHidden(paths: readonly string[]): SandboxPlan['hidden'] {
  return paths.flatMap((named) => {
    const absolute = realOrNull(named);
    const type = absolute === null ? null : typeOf(absolute);
    if (absolute === null) return [];
    return type === null ? [] : [{ path: absolute, type }];
  });
}

/** Each git config file among `files` that holds credentials, shown without them. */
function replacedGitConfigs(files: readonly string[]): ReplacedFile[] {
  return files.flatMap((absolute) => {
    if (!GIT_CONFIG_NAMES.includes(path.basename(absolute))) return [];
    let text: string;
    try {
      text = readFileSync(absolute, 'utf8');
    } catch {
      return [];
    }
    const content = withoutCredentials(text);
    return content === null ? [] : [{ path: absolute, content }];
  });
}

function uniqueHidden(hidden: SandboxPlan['hidden']): SandboxPlan['hidden'] {
  const seen = new Set<string>();
  return hidden.filter((entry) => !seen.has(entry.path) && seen.add(entry.path));
}

function typeOf(absolute: string): 'file' | 'dir' | null {
  try {
    const stats = lstatSync(absolute);
    if (stats.isSymbolicLink()) return null;
    return stats.isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

function realOrNull(absolute: string): string | null {
  try {
    return realpathSync(absolute);
  } catch {
    return null;
  }
}
