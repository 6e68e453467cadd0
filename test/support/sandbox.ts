/**
 * The OS sandbox of this machine for tests that run commands: built as the host builds it
 * (host/cli/machine-sandbox.ts), so a test's commands run as the host's would.
 * `SANDBOXED` is the status policy-only tests decide with.
 */
import { homedir } from 'node:os';
import { machineSandbox as hostMachineSandbox } from '../../host/cli/machine-sandbox.js';
import { PolicyConfig } from '../../host/policy/index.js';
import { detectSandbox } from '../../host/sandbox/index.js';
import type { Sandbox, SandboxStatus } from '../../host/sandbox/index.js';

/** This machine's sandbox, found once per test file. */
export const machineSandboxStatus: SandboxStatus = detectSandbox({
  platform: process.platform,
  searchPath: process.env.PATH ?? '',
});

/** A sandbox status that says one is available, for tests of policy alone (nothing runs). */
export const SANDBOXED: SandboxStatus = { available: true, kind: 'bwrap', program: 'bwrap' };

/** The sandbox commands run in here, hiding the default secret set of `home`. */
export function machineSandbox(home = homedir(), hostPaths: readonly string[] = []): Sandbox {
  return hostMachineSandbox({
    policy: PolicyConfig.parse({}),
    home,
    hostPaths,
    platform: process.platform,
    searchPath: process.env.PATH ?? '',
  });
}
