/**
 * The approval card's line for where a command runs, the same words on every device and
 * in `tether remote approve` (docs/policy.md, "The sandbox").
 */
import type { CommandSandbox } from './records.js';

/**
 * "sandboxed: may change files in /Users/me/app, no network, cannot read your secrets"
 * ("network only to api.anthropic.com" for a process the host's proxy filters),
 * or "outside the sandbox: full access, because bwrap is not installed".
 */
export function sandboxScopeLine(sandbox: CommandSandbox): string {
  if (!sandbox.contained) return `outside the sandbox: full access, because ${sandbox.reason}`;
  const writes =
    sandbox.writable.length === 0
      ? 'may change no files'
      : `may change files in ${sandbox.writable.join(', ')}`;
  const hosts = sandbox.networkHosts ?? [];
  const network = !sandbox.network
    ? 'no network'
    : hosts.length > 0
      ? `network only to ${hosts.join(', ')}`
      : 'WITH network access';
  return `sandboxed: ${writes}, ${network}, cannot read your secrets`;
}
