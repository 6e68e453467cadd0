/**
 * The line every remote shows on a tool call a rule added from a remote let run without
 * asking: "allowed by a rule you added on <device>, <date>" (docs/policy.md).
 */
import type { AllowedBy } from '../../protocol/index.js';

/** The line for `allowedBy`; the date is the day the rule was added (UTC, YYYY-MM-DD). */
export function allowedByText(allowedBy: AllowedBy): string {
  const day = new Date(allowedBy.addedAt).toISOString().slice(0, 10);
  return `allowed by a rule you added on ${allowedBy.deviceName}, ${day}`;
}
