/**
 * The JSON a row stores, with every registered secret masked: the last gate before a value
 * is committed (and, for events, sent to every device).
 */
import type { Redactor } from '../log/index.js';

/** What is stored and what stands for it: `value` itself unless a secret was masked. */
export interface MaskedJson<T> {
  json: string;
  value: T;
}

/**
 * `JSON.stringify(value)` with every secret `secrets` holds masked in its strings (keys
 * included). The common case costs one scan of the JSON text; only a value that holds a
 * secret is copied, string by string, so the JSON's structure is never touched.
 */
export function maskedJson<T>(value: T, secrets: Redactor | null): MaskedJson<T> {
  const json = JSON.stringify(value);
  if (secrets === null || secrets.text(json) === json) return { json, value };
  // Masking maps strings to strings, so the copy has the value's own shape.
  const masked = maskStrings(value, secrets) as T;
  return { json: JSON.stringify(masked), value: masked };
}

function maskStrings(value: unknown, secrets: Redactor): unknown {
  if (typeof value === 'string') return secrets.text(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => maskStrings(item, secrets));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [secrets.text(key), maskStrings(item, secrets)]),
  );
}
