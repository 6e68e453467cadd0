/**
 * Size bounds on what one log entry may hold, so input from the network (a `hello` offering
 * a million versions, a megabyte of JSON) cannot turn into megabytes of log.
 */

/** How much of each field an entry keeps; what is cut says how much was left out. */
export interface LogBounds {
  /** Characters kept of a string (`msg` included); the rest becomes `…[N more chars]`. */
  maxStringChars: number;
  /** Items kept of an array; then one `…[N more items]` item. */
  maxArrayItems: number;
  /** Keys kept of an object; then `"…": "N more keys"`. */
  maxObjectKeys: number;
  /** Nesting kept; deeper values become `[too deep]`. */
  maxDepth: number;
  /** A line longer than this (bytes of JSON) keeps only `at`, `level`, `msg` and its size. */
  maxLineBytes: number;
}

export const DEFAULT_LOG_BOUNDS: LogBounds = {
  maxStringChars: 2048,
  maxArrayItems: 64,
  maxObjectKeys: 64,
  maxDepth: 6,
  maxLineBytes: 16 * 1024,
};

/** Keys are names, not content: a longer one is cut to this. */
const MAX_KEY_CHARS = 128;

/** `text` cut to `max` characters, saying how many were left out. */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}…[${text.length - max} more chars]`;
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A copy of `fields` with arrays, plain objects and nesting cut to `bounds`, and cycles
 * as `[circular]`. Strings are left whole: this runs before redaction, where cutting a
 * string could split a secret and leave half of it unmasked. Other objects (bytes,
 * errors, dates) are kept as they are for the redactor to render.
 */
export function boundShapes(
  fields: Record<string, unknown>,
  bounds: LogBounds,
): Record<string, unknown> {
  const path = new Set<object>();
  const bound = (value: unknown, depth: number): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    if (!Array.isArray(value) && !isPlainObject(value)) return value;
    if (path.has(value)) return '[circular]';
    if (depth >= bounds.maxDepth) return '[too deep]';
    path.add(value);
    try {
      if (!Array.isArray(value)) return boundObject(value as Record<string, unknown>, depth);
      const kept = value.slice(0, bounds.maxArrayItems).map((item) => bound(item, depth + 1));
      const more = value.length - kept.length;
      return more > 0 ? [...kept, `…[${more} more items]`] : kept;
    } finally {
      path.delete(value);
    }
  };
  const boundObject = (value: Record<string, unknown>, depth: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    let kept = 0;
    let more = 0;
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      if (kept >= bounds.maxObjectKeys) {
        more++;
        continue;
      }
      kept++;
      out[key] = bound(value[key], depth + 1);
    }
    if (more > 0) out['…'] = `${more} more keys`;
    return out;
  };
  return boundObject(fields, 0);
}

/** `value` (plain JSON, as the redactor returns it) with every string and key cut to `bounds`. */
export function boundStrings(value: unknown, bounds: LogBounds): unknown {
  if (typeof value === 'string') return boundText(value, bounds.maxStringChars);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => boundStrings(item, bounds));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[boundText(key, MAX_KEY_CHARS)] = boundStrings(item, bounds);
  }
  return out;
}
