/**
 * host/policy: allow / ask / deny for each proposed tool call, from the policy config,
 * workspace containment by real path, and protected paths. Decides, never executes.
 */
export { createHostPolicy } from './host-policy.js';
export { PolicyConfig } from './policy-config.js';
export { sandboxSecrets } from './sandbox-secrets.js';
export { allowRuleWarnings } from './command-risk.js';
export type { AddedRule, PolicyDecision } from './types.js';
