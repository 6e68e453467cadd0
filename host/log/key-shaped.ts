/**
 * Text shaped like an API key or a bearer token, whoever's it is: what a provider's error
 * may echo besides the key Tether sent (a key from its own config, a proxy's token).
 */

// The ellipsis as `\u2026`, an escape the RegExp reads: no source character above Latin-1
// makes V8 keep the bundle's text at two bytes a character (docs/performance.md, "Idle RSS").
const ELISION = String.raw`(?:\*{3,}|\u2026|\.{3,})`;

/**
 * OpenAI, DeepSeek, Anthropic (`sk-ant-`), OpenRouter (`sk-or-`) and their elided echoes
 * (`sk-proj-****abcd`, `sk-abc…wxyz`); Groq `gsk_`; xAI `xai-`; Google `AIza`; and the
 * token after `Bearer`, whose word is kept.
 */
const KEY_SHAPED = new RegExp(
  [
    String.raw`(?<![\w-])sk-[\w-]*${ELISION}[\w-]*`,
    String.raw`(?<![\w-])sk-[\w-]{16,}`,
    String.raw`(?<![\w-])gsk_[A-Za-z0-9]{16,}`,
    String.raw`(?<![\w-])xai-[A-Za-z0-9]{16,}`,
    String.raw`(?<![\w-])AIza[\w-]{30,}`,
    String.raw`(?<=\b(?:Bearer|bearer|BEARER)\s+)[\w.~+/-]{16,}=*`,
  ].join('|'),
  'g',
);

/** `text` with every key-shaped token replaced by `mask`. */
export function maskKeyShapedTokens(text: string, mask: string): string {
  return text.replace(KEY_SHAPED, mask);
}
