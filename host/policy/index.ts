/**
 * host/policy: allow / ask / deny for each proposed tool call, from the policy config,
 * workspace containment by real path, and protected paths. Decides, never executes.
 */
export { decidePolicy } from './decide-policy.js';
export { POLICY_TOOL_NAMES, PolicyConfig } from './policy-config.js';
export { matchRule, MORE_ARGUMENTS_WORDS } from './command-rules.js';
export type { RuleMatch } from './command-rules.js';
export { allowRuleWarnings } from './rule-warnings.js';
export type { PolicyConfigInput } from './policy-config.js';
export type { PolicyAccess, PolicyCall, PolicyContext, PolicyDecision } from './types.js';
