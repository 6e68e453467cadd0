/**
 * The contracts of the OS sandbox every command runs in (docs/policy.md, "The sandbox"):
 * what a call may touch, as one plan that both platforms' builders turn into their own
 * form (bubblewrap arguments on Linux, a Seatbelt profile on macOS).
 */

/** More than the default a command asks for in its input (`run_command`'s `sandbox`). */
export interface SandboxRequest {
  /** Network access (the default is none, loopback included). */
  network?: boolean;
  /**
   * The network only to these hosts (./network-hosts.ts patterns, validated), through the
   * host's proxy (./network-proxy.ts); `network` is then ignored. An empty list: none.
   */
  hosts?: readonly string[];
  /** Folders or files outside the workspace the command may also change (real paths). */
  write?: readonly string[];
  /**
   * Git folders outside the workspace shown read-only (real paths), named by the host: a
   * worktree's repository folder. Their `config` is shown without credentials.
   */
  gitReadOnly?: readonly string[];
  /**
   * Folders outside the system's and the workspace the process may read (real paths),
   * named by the host's config: an ACP agent's own program folder (docs/agents.md).
   * Shown read-only where bubblewrap builds the root from an allowlist.
   */
  read?: readonly string[];
}

/** A file or folder hidden inside the sandbox: it cannot be read, listed or written. */
export interface HiddenPath {
  /** Absolute real path. */
  path: string;
  type: 'file' | 'dir';
}

/** A file the sandbox shows with other content: `.git/config` without its credentials. */
export interface ReplacedFile {
  /** Absolute real path of the file the command sees. */
  path: string;
  /** The content it sees there instead (read-only). */
  content: string;
}

/**
 * Everything one sandboxed command may touch. Reads: everything but `hidden` and what
 * `hiddenPatterns` match. Writes: only inside `writable`, never `readOnly`, `hidden` or
 * what `hiddenPatterns` match. Network: `network`. Child processes stay inside, and the
 * sandbox ends with the call's process group.
 */
export interface SandboxPlan {
  /** Real path of the workspace (writable; the command's folder is inside it or approved). */
  workspace: string;
  /** Folders (and files) the command may change, real paths: the workspace, approved extras. */
  writable: readonly string[];
  /** A private temporary folder for this call (writable; `TMPDIR` names it). */
  tempDir: string;
  /**
   * Paths inside a writable folder that stay read-only: the `.git` internals that make
   * git run code (`hooks`, `config`, `info`) of each repository found. Existing ones only.
   */
  readOnly: readonly string[];
  /**
   * Folders programs run from outside the system's folders and the home folder (the
   * host's `PATH`: Homebrew on Linux, `/usr/local/go/bin` is under /usr already):
   * shown read-only where bubblewrap builds the root from an allowlist. Seatbelt ignores it.
   */
  programFolders: readonly string[];
  /**
   * Folders bound onto themselves so they cannot be renamed or removed (bubblewrap): each
   * git folder, or `mv .git g` would leave its read-only parts behind under another name.
   * Seatbelt pins the folders above protected paths itself.
   */
  pinned: readonly string[];
  /** Existing secrets, the host's data directory and config file: no read, no write. */
  hidden: readonly HiddenPath[];
  /**
   * Files shown with other content, read-only: a `.git/config` holding credentials, as
   * it is without them (Linux). A builder that cannot replace a file hides it instead.
   */
  replaced: readonly ReplacedFile[];
  /**
   * The secret set as regular expressions on an absolute path (POSIX extended syntax, as
   * Seatbelt's `regex` takes them): denied for reads and writes wherever they match,
   * also for files created during the call. Builders that can only hide existing paths
   * (bubblewrap) ignore them; the host then checks the workspace after the call.
   */
  hiddenPatterns: readonly string[];
  /** True: the command may use the network. False: none, loopback included. */
  network: boolean;
  /**
   * With `network` false, the loopback port of the host's proxy to the allowed hosts
   * (./network-proxy.ts), the one address a Seatbelt profile lets the command reach.
   * Null: no proxy, or one bubblewrap's command reaches by its socket (./network-bridge.ts).
   */
  proxyPort: number | null;
  /**
   * Linux: the user's home folder, emptied inside the sandbox but for `readable` (the
   * toolchains commands run from, read-only) and what is writable: bubblewrap cannot hide
   * secrets by name, and a walk of a whole home folder is too slow. Null: the home folder
   * is not emptied (it is the workspace, or holds it at its root). Seatbelt ignores it:
   * its patterns hide the secret set everywhere.
   */
  home: { path: string; readable: readonly string[] } | null;
  /** Git folders outside the writable ones shown read-only (`SandboxRequest.gitReadOnly`). */
  gitReadOnly: readonly string[];
}

/** A command line to start in place of the command: the sandbox program and its arguments. */
export interface WrappedCommand {
  file: string;
  args: string[];
  /** A file the program must find open as its descriptor 3 (bubblewrap's seccomp filter). */
  fd3?: string;
  /** Variables the program gets besides the caller's (the proxy's, ./network-bridge.ts). */
  env?: Record<string, string>;
}

/** Which sandbox this machine has, or why none can run. */
export type SandboxStatus =
  | { available: true; kind: 'bwrap' | 'seatbelt'; program: string }
  | {
      available: false;
      /** Why, in a sentence: "bwrap is not installed". */
      reason: string;
      /** What to do about it: "install it: sudo apt-get install bubblewrap". */
      fix: string;
    };
