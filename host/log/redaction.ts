/**
 * The redaction pass every log entry goes through before it is written.
 */
import { b64u, bytesToHex } from '../../protocol/index.js';

const MASK = '***';
const MAX_DEPTH = 8;
/** Shorter registered secrets are not matched as text: they would mask ordinary words. */
const MIN_SECRET_CHARS = 8;

/** Words (after splitting camelCase, snake_case and kebab-case) that name a secret. */
const SECRET_WORDS = new Set([
  'apikey',
  'authorization',
  'password',
  'psk',
  'secret',
  'secrets',
  'seed',
  'sk',
  'token',
]);

/**
 * True for field names like `apiKey`, `api_key`, `X-Api-Key`, `hostSk`, `authorization`,
 * `pairingToken`, `seed`: a word of the name, or two adjacent words joined, is a secret
 * word. `task`, `disk` and `maxTokens` are not.
 */
function isSecretFieldName(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  return words.some(
    (word, i) => SECRET_WORDS.has(word) || SECRET_WORDS.has(word + (words[i + 1] ?? '')),
  );
}

/** Masks secrets by field name and by registered value, and makes values JSON-safe. */
export class Redactor {
  /** Longest first, so a secret that contains another is masked whole. */
  #secrets: string[] = [];

  register(secret: string | Uint8Array): void {
    const forms =
      typeof secret === 'string'
        ? [secret]
        : [b64u(secret), Buffer.from(secret).toString('base64'), bytesToHex(secret)];
    const fresh = forms.filter(
      (form) => form.length >= MIN_SECRET_CHARS && !this.#secrets.includes(form),
    );
    this.#secrets = [...this.#secrets, ...fresh].sort((a, b) => b.length - a.length);
  }

  /** Masks every registered secret inside `text`. */
  text(text: string): string {
    let out = text;
    for (const secret of this.#secrets) {
      if (out.includes(secret)) out = out.split(secret).join(MASK);
    }
    return out;
  }

  /**
   * A JSON-safe copy of `fields` with secrets masked: bytes become `[N bytes]`, errors
   * their name, message, code, stack and cause, bigints strings; cycles and nesting past
   * 8 levels are cut.
   */
  fields(fields: Record<string, unknown>): Record<string, unknown> {
    return this.#object(fields, 0, new WeakSet());
  }

  #object(value: object, depth: number, seen: WeakSet<object>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue;
      if (isSecretFieldName(key)) {
        out[this.text(key)] = MASK;
        continue;
      }
      const safe = this.#value(item, depth + 1, seen);
      if (safe !== undefined) out[this.text(key)] = safe;
    }
    return out;
  }

  #value(value: unknown, depth: number, seen: WeakSet<object>): unknown {
    switch (typeof value) {
      case 'string':
        return this.text(value);
      case 'number':
      case 'boolean':
        return value;
      case 'bigint':
        return value.toString();
      case 'object':
        break;
      default:
        return undefined;
    }
    if (value === null) return null;
    if (value instanceof Uint8Array) return `[${value.length} bytes]`;
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
    if (seen.has(value)) return '[circular]';
    if (depth >= MAX_DEPTH) return '[too deep]';
    seen.add(value);
    try {
      if (Array.isArray(value)) {
        return value.map((item) => this.#value(item, depth + 1, seen) ?? null);
      }
      if (value instanceof Error) {
        const { name, message, stack, cause } = value;
        return this.#object({ ...value, name, message, stack, cause }, depth, seen);
      }
      return this.#object(value, depth, seen);
    } finally {
      // Only the current path counts as a cycle: the same object twice side by side is fine.
      seen.delete(value);
    }
  }
}
