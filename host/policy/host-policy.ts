/**
 * The policy a started host decides with: MCP tools by their servers' settings, every other
 * call by {@link decidePolicy} with the config's policy, the machine's sandbox and the
 * host's own paths; and the protected paths the search tools must never list or read.
 */
import type { SandboxStatus } from '../sandbox/index.js';
import { decidePolicy } from './decide-policy.js';
import type { PolicyConfig } from './policy-config.js';
import { compileReadProtection } from './protected-paths.js';
import type { AddedRule, PolicyCall, PolicyDecision } from './types.js';

export interface HostPolicyOptions {
  policy: PolicyConfig;
  /** The user's home folder, for `~/…` protected paths. */
  home: string;
  sandbox: SandboxStatus;
  /** Real paths of the host's data directory and config file. */
  hostPaths: readonly string[];
  /**
   * Tools whose own settings decide for them (host/mcp's servers): a decision there is
   * final; null for a name that is not theirs.
   */
  toolSettings: { decide(name: string): PolicyDecision | null };
}

export interface HostPolicy {
  /** Allow / ask / deny for one call in `workspace` (the runtime's `PolicyFn`). */
  decide: (
    call: PolicyCall,
    workspace: string,
    addedRules: readonly AddedRule[],
    scope?: { worktree: boolean; readOnly?: readonly string[] },
  ) => Promise<PolicyDecision>;
  /** Whether a path in `workspace` is protected from reads (the search tools skip it). */
  readProtection: (workspace: string) => Promise<(absolute: string) => boolean>;
}

export function createHostPolicy(options: HostPolicyOptions): HostPolicy {
  const { policy, home, sandbox, hostPaths, toolSettings } = options;
  return {
    decide: (call, workspace, addedRules, scope) => {
      const decided = toolSettings.decide(call.name);
      if (decided !== null) return Promise.resolve(decided);
      return decidePolicy(call, {
        workspace,
        worktree: scope?.worktree === true,
        readOnly: scope?.readOnly ?? [],
        policy,
        homedir: home,
        sandbox,
        hostPaths,
        addedRules,
      });
    },
    readProtection: (workspace) =>
      compileReadProtection(policy.protectedPaths, workspace, home, {
        hostPaths,
        allowSecretPaths: policy.allowSecretPaths,
      }),
  };
}
