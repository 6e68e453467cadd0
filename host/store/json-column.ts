import { z } from 'zod';
import { parseWith } from '../../protocol/index.js';

/** Reads a JSON column back through its schema: rows from older versions are validated too. */
export function readJsonColumn<S extends z.core.$ZodType>(
  schema: S,
  text: string,
  what: string,
): z.output<S> {
  return parseWith(schema, JSON.parse(text) as unknown, what);
}

export const JsonRecord = z.record(z.string(), z.unknown());
