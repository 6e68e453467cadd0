/**
 * The OS sandbox of this machine for tests that run commands: the same detection and
 * secret set the host uses (host/sandbox, host/policy), so a test's commands run as the
 * host's would. `SANDBOXED` is the status policy-only tests decide with.
 */
import { homedir } from 'node:os';
import { PolicyConfig, sandboxSecrets } from '../../host/policy/index.js';
import { detectSandbox, Sandbox } from '../../host/sandbox/index.js';
import type { SandboxStatus } from '../../host/sandbox/index.js';

/** This machine's sandbox, found once per test file. */
export const machineSandboxStatus: SandboxStatus = detectSandbox({
  platform: process.platform,
  searchPath: process.env.PATH ?? '',
});

/** A sandbox status that says one is available, for tests of policy alone (nothing runs). */
export const SANDBOXED: SandboxStatus = { available: true, kind: 'bwrap', program: 'bwrap' };

/** The sandbox commands run in here, hiding the default secret set of `home`. */
export function machineSandbox(home = homedir(), hostPaths: readonly string[] = []): Sandbox {
  const policy = PolicyConfig.parse({});
  return new Sandbox(
    machineSandboxStatus,
    (workspace) => sandboxSecrets(policy, workspace, home, hostPaths),
    home,
  );
}
