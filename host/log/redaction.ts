/**
 * The redaction pass every log entry, event payload and model error goes through before it
 * is written: the one place that knows the host's secrets and how they show in text.
 */
import { b64u, bytesToHex } from '../../protocol/index.js';
import { maskKeyShapedTokens } from './key-shaped.js';
import { maskSecretEchoes, secretForm, type SecretForm } from './secret-echoes.js';

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

/** Field names already looked at: a log line's keys are mostly the same few. */
const secretFieldNames = new Map<string, boolean>();
const MAX_KNOWN_FIELD_NAMES = 1000;

/**
 * True for field names like `apiKey`, `api_key`, `X-Api-Key`, `hostSk`, `authorization`,
 * `pairingToken`, `seed`: a word of the name, or two adjacent words joined, is a secret
 * word. `task`, `disk` and `maxTokens` are not.
 */
export function isSecretFieldName(name: string): boolean {
  let secret = secretFieldNames.get(name);
  if (secret === undefined) {
    secret = hasSecretWord(name);
    // The host's own field names, seen on every line: kept; a flood of others is not.
    if (secretFieldNames.size >= MAX_KNOWN_FIELD_NAMES) secretFieldNames.clear();
    secretFieldNames.set(name, secret);
  }
  return secret;
}

function hasSecretWord(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  return words.some(
    (word, i) => SECRET_WORDS.has(word) || SECRET_WORDS.has(word + (words[i + 1] ?? '')),
  );
}

/**
 * Masks secrets by field name and by registered value, and makes values JSON-safe. One
 * instance holds the host's secrets (the model API key, the host key, the admin token);
 * the logger, the store and the model adapter mask with what it holds.
 */
export class Redactor {
  #forms: SecretForm[] = [];

  /**
   * Masks `secret` from now on. Bytes are registered in their base64url, base64 and hex
   * forms; a string that JSON escapes also in its escaped form. Forms shorter than 8
   * characters are not matched as text (they would mask ordinary words).
   */
  register(secret: string | Uint8Array): void {
    const forms =
      typeof secret === 'string'
        ? [secret, JSON.stringify(secret).slice(1, -1)]
        : [b64u(secret), Buffer.from(secret).toString('base64'), bytesToHex(secret)];
    for (const form of forms) {
      if (form.length < MIN_SECRET_CHARS || this.#forms.some((known) => known.text === form)) {
        continue;
      }
      this.#forms = [...this.#forms, secretForm(form)];
    }
  }

  /**
   * Masks every registered secret inside `text`, and what gives one away: a prefix of it
   * of 8 characters or more (at least 4 past a type tag such as `sk-proj-`, which is the
   * same for every key), and an elision (`***`, `...`, `…`) followed by its last 4
   * characters, with the prefix before the elision (`sk-proj-****…abcd`, `sk-abc…wxyz`,
   * `****abcd`). Returns `text` itself when nothing was masked.
   */
  text(text: string): string {
    return maskSecretEchoes(text, this.#forms, MASK);
  }

  /**
   * {@link text}, and also every token shaped like an API key or a bearer token
   * (`sk-…`, `sk-ant-…`, `gsk_…`, `xai-…`, `AIza…`, `Bearer …`), registered or not: for
   * messages from outside the host, such as a provider's error, which may echo any key.
   */
  foreignText(text: string): string {
    return maskKeyShapedTokens(this.text(text), MASK);
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
