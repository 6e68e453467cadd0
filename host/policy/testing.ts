/**
 * host/policy/testing: names the tests use that production code does not. Production code
 * never imports this module (eslint.config.js); the public face is ./index.ts.
 */
export { decidePolicy } from './decide-policy.js';
export type { PolicyConfigInput } from './policy-config.js';
export { compileReadProtection, secretPathRegexes } from './protected-paths.js';
export { homeSecretStores } from './secret-set.js';
export type { PolicyCall } from './types.js';
