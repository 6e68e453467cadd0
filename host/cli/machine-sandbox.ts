/**
 * The command sandbox of this machine, as the host builds it at start: the sandbox found
 * by running one (host/sandbox), hiding the policy's secret set, compiled once per
 * workspace (host/policy `sandboxSecrets`). Benches and tests build it the same way.
 */
import { realpathSync } from 'node:fs';
import type { HostConfig } from '../config/index.js';
import type { PolicyConfig } from '../policy/index.js';
import { sandboxSecrets } from '../policy/index.js';
import { detectSandbox, Sandbox } from '../sandbox/index.js';
import type { SecretSet } from '../sandbox/index.js';

export interface MachineSandboxOptions {
  policy: PolicyConfig;
  /** The user's home folder: its secret stores are hidden, its toolchains shown. */
  home: string;
  /** Real paths of the host's data directory and config file. */
  hostPaths: readonly string[];
  platform: NodeJS.Platform;
  /** The host's `PATH`, searched for bubblewrap. */
  searchPath: string;
}

/**
 * Workspaces whose compiled secret set is kept: a worktree run and each start of an MCP
 * server have a folder of their own, so the set of workspaces grows with uptime.
 */
const KEPT_SECRET_SETS = 32;

export function machineSandbox(options: MachineSandboxOptions): Sandbox {
  const status = detectSandbox({ platform: options.platform, searchPath: options.searchPath });
  // In the order last used: the first is the one dropped.
  const secretsByWorkspace = new Map<string, Promise<SecretSet>>();
  return new Sandbox(
    status,
    (workspace) => {
      const secrets =
        secretsByWorkspace.get(workspace) ??
        sandboxSecrets(options.policy, workspace, options.home, options.hostPaths);
      secretsByWorkspace.delete(workspace);
      secretsByWorkspace.set(workspace, secrets);
      const oldest = secretsByWorkspace.keys().next().value;
      if (secretsByWorkspace.size > KEPT_SECRET_SETS && oldest !== undefined) {
        secretsByWorkspace.delete(oldest);
      }
      return secrets;
    },
    options.home,
  );
}

/**
 * Real paths of the host's own data directory and config file: every tool and the
 * sandbox deny them, reads too, even inside a workspace.
 */
export function hostRealPaths(config: HostConfig): string[] {
  return [config.dataDir, ...(config.configFile === null ? [] : [config.configFile])].map(
    (named) => {
      try {
        return realpathSync(named);
      } catch {
        return named;
      }
    },
  );
}
