/**
 * host/policy: allow / ask / deny for each proposed tool call, from the policy config,
 * workspace containment by real path, and protected paths. Decides, never executes.
 */
export { decidePolicy } from './decide-policy.js';
export { PolicyConfig } from './policy-config.js';
export { compileReadProtection } from './protected-paths.js';
export { sandboxSecrets } from './sandbox-secrets.js';
export { allowRuleWarnings } from './command-risk.js';
export type { AddedRule, PolicyDecision } from './types.js';
