/**
 * host/sandbox/testing: names the tests use that production code does not. Production code
 * never imports this module (eslint.config.js); the public face is ./index.ts.
 */
export { seatbeltCommand, seatbeltProfile } from './seatbelt-profile.js';
export type { SandboxPlan } from './types.js';
export { withoutCredentials } from './git-config-credentials.js';
