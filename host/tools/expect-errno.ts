/**
 * Errors that can only be system errors: their errno code, or the error thrown again.
 */
import { errnoCode } from './errno.js';

/** The errno code of `error`; anything that is not a system error is a bug and is rethrown. */
export function expectErrnoCode(error: unknown): string {
  const code = errnoCode(error);
  if (code === undefined) throw error;
  return code;
}
