/**
 * Validation at the edge: every frame, body and argument goes through a zod schema.
 */
import { z } from 'zod/mini';
import { TetherError } from './errors.js';

/** One validation problem, as sent in `details.issues`. */
export interface ValidationIssue {
  path: string;
  message: string;
}

export function describeIssues(error: z.core.$ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.'),
    message: issue.message,
  }));
}

/**
 * Parses `value` with `schema`, or throws `invalid_request` whose message lists every
 * issue (`args.input.text: Invalid input: expected string`) and whose details carry them.
 */
export function parseWith<S extends z.core.$ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.output<S> {
  const parsed = z.safeParse(schema, value);
  if (parsed.success) return parsed.data;
  const issues = describeIssues(parsed.error);
  const list = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  throw new TetherError('invalid_request', `invalid ${what}: ${list}`, { details: { issues } });
}

/** Parses JSON text, turning a syntax error into `invalid_request`. */
export function parseJson(text: string, what: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch (cause) {
    throw new TetherError('invalid_request', `invalid ${what}: not JSON`, { cause });
  }
}
