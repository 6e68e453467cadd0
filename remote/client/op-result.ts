/**
 * Validating what the host answers: every result goes through its op's schema.
 */
import {
  describeIssues,
  type OpName,
  type OpResult,
  OPS,
  TetherError,
} from '../../protocol/index.js';

/** The op's result as its schema reads it; `protocol_error` listing the issues otherwise. */
export function parseResult<O extends OpName>(op: O, result: unknown): OpResult<O> {
  const parsed = OPS[op].result.safeParse(result);
  if (parsed.success) return parsed.data as OpResult<O>;
  throw new TetherError('protocol_error', `host sent an invalid result for ${op}`, {
    details: { issues: describeIssues(parsed.error) },
  });
}
