/**
 * The contracts of policy: what it is asked about, what it knows, what it answers.
 */
import type { AllowedBy, RuleProposal } from '../../protocol/index.js';
import type { SandboxStatus } from '../sandbox/index.js';
import type { ToolAccess } from '../tools/index.js';
import type { PolicyConfig } from './policy-config.js';

/**
 * A proposed tool call: its tool's name and what the tool declares the call touches
 * (host/tools `ToolAccess`, from the input the tool validated).
 */
export interface PolicyCall {
  name: string;
  access: ToolAccess;
}

/** What policy decides with. */
export interface PolicyContext {
  /** Real path of the run's workspace (symlinks resolved). */
  workspace: string;
  policy: PolicyConfig;
  /** The user's home folder, for `~/…` protected paths. */
  homedir: string;
  /**
   * Real paths of Tether's own data directory and config file: denied to every tool, reads
   * too (the host always gives them; a test may leave them out).
   */
  hostPaths?: readonly string[];
  /**
   * The machine's sandbox: commands run unasked (by a rule or `tools.run_command`) only
   * while one is available; without it every command asks, saying why.
   */
  sandbox: SandboxStatus;
  /**
   * True when the workspace is a run's own worktree: under `policy.worktree: "allow"`,
   * writes and sandboxed commands inside it run unasked.
   */
  worktree?: boolean;
  /**
   * Real paths of folders outside the workspace the run may read and never write (its
   * attachments, docs/attachments.md): reads there are allowed, writes denied.
   */
  readOnly?: readonly string[];
  /** Rules added from a remote for this workspace (exact words; the config's rules win). */
  addedRules?: readonly AddedRule[];
}

/** A rule added from a remote ("Allow like this from now on"), as policy matches it. */
export interface AddedRule {
  id: string;
  /** The command's exact words: the rule matches those, nothing more. */
  words: readonly string[];
  deviceId: string;
  deviceName: string;
  addedAt: number;
}

/** A path a call would touch outside the workspace, for an approval card or a log line. */
export interface PolicyAccess {
  /** Real path (symlinks resolved). */
  path: string;
  kind: 'read' | 'write';
}

/** Policy's answer for one call. */
export interface PolicyDecision {
  /** `allow`: run now; `ask`: wait for the user's approval; `deny`: never run it. */
  decision: 'allow' | 'ask' | 'deny';
  /** One sentence a person can read: an approval card shows it, a denial tells the model. */
  reason: string;
  /** Set when the call would touch a path outside the workspace. */
  access?: PolicyAccess;
  /** `allow` by a rule added from a remote: which one. */
  allowedBy?: AllowedBy;
  /** `ask`: the rule an approval card may offer for this call, or why none is offered. */
  proposal?: RuleProposal;
}
