/**
 * host/sandbox: the OS sandbox every command runs in (bubblewrap on Linux, Seatbelt on
 * macOS), built per call from one plan of what the call may touch.
 */
export { Sandbox } from './command-sandbox.js';
export { configuredRequest, type ConfiguredAccess } from './configured-request.js';
export type { PreparedSandbox, SecretSet } from './command-sandbox.js';
export { detectSandbox } from './detect-sandbox.js';
export { NetworkHost } from './network-hosts.js';
export { isInside } from './path-inside.js';
export { removeTree } from './remove-tree.js';
export { spawnWrapped } from './spawn-wrapped.js';
export type { SandboxRequest, SandboxStatus, WrappedCommand } from './types.js';
