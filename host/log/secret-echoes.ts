/**
 * Where a registered secret shows in a text: whole, cut short, or echoed the way providers
 * echo a key they refuse (`sk-proj-****…abcd`, `sk-abc…wxyz`, `****abcd`).
 */

/** Characters a key's last part keeps in an elided echo, at least. */
const TAIL_CHARS = 4;
/** Characters a prefix keeps beyond the key's type tag before it counts as the key's. */
const PREFIX_CHARS_PAST_TAG = 4;
/** The shortest prefix that counts as the key's. */
const MIN_PREFIX_CHARS = 8;
/**
 * A key's leading type tag, the same for every key of its kind (`sk-`, `sk-proj-`,
 * `sk-ant-api03-`, `gsk_`, `xai-`): alone it says nothing about the key.
 */
const TYPE_TAG = /^(?:[A-Za-z]+[0-9]*[-_]){1,3}/;

/** One text form of a secret and the parts of it that give it away. */
export interface SecretForm {
  readonly text: string;
  /** The shortest prefix that is masked: 8 characters, and 4 past the type tag. */
  readonly anchor: string;
  /** The last 4 characters, masked when an elision comes right before them. */
  readonly tail: string;
}

export function secretForm(text: string): SecretForm {
  const tag = TYPE_TAG.exec(text)?.[0].length ?? 0;
  const anchorChars = Math.max(MIN_PREFIX_CHARS, tag + PREFIX_CHARS_PAST_TAG);
  return { text, anchor: text.slice(0, anchorChars), tail: text.slice(-TAIL_CHARS) };
}

/** A half-open range `[start, end)` of a text. */
type Span = [start: number, end: number];

/**
 * Masks with `mask` every place in `text` where one of `forms` shows: the whole secret,
 * any prefix of it at least as long as its anchor, and an elision (`***`, `...`, `…`)
 * followed by the secret's last characters, with whatever prefix of the secret comes
 * before the elision. Returns `text` itself when nothing shows.
 */
export function maskSecretEchoes(text: string, forms: readonly SecretForm[], mask: string): string {
  const spans: Span[] = [];
  for (const form of forms) {
    prefixSpans(text, form, spans);
    elidedSpans(text, form, spans);
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let from = 0;
  let end = -1;
  for (const [start, stop] of spans) {
    if (start > end) {
      if (end >= 0) out += mask;
      out += text.slice(from, start);
    }
    end = Math.max(end, stop);
    from = end;
  }
  return `${out}${mask}${text.slice(from)}`;
}

/** The anchor wherever it occurs, extended over as much more of the secret as follows. */
function prefixSpans(text: string, form: SecretForm, spans: Span[]): void {
  const { anchor, text: secret } = form;
  for (let at = text.indexOf(anchor); at !== -1; at = text.indexOf(anchor, at + 1)) {
    let end = at + anchor.length;
    while (end - at < secret.length && text[end] === secret[end - at]) end++;
    spans.push([at, end]);
  }
}

/** The tail after an elision (after more of the secret's end), and the prefix before it. */
function elidedSpans(text: string, form: SecretForm, spans: Span[]): void {
  const { tail, text: secret } = form;
  for (let at = text.indexOf(tail); at !== -1; at = text.indexOf(tail, at + 1)) {
    let start = at;
    let inSecret = secret.length - tail.length;
    while (inSecret > 0 && start > 0 && text[start - 1] === secret[inSecret - 1]) {
      start--;
      inSecret--;
    }
    if (inSecret === 0) {
      spans.push([start, at + tail.length]);
      continue;
    }
    const elision = elisionBefore(text, start);
    if (elision === -1) continue;
    spans.push([prefixBefore(text, elision, secret), at + tail.length]);
  }
}

/** Where an elision that ends at `end` starts: `…`, or three or more `*` or `.`; else -1. */
function elisionBefore(text: string, end: number): number {
  const mark = text[end - 1];
  if (mark !== '…' && mark !== '*' && mark !== '.') return -1;
  let start = end - 1;
  while (start > 0 && text[start - 1] === mark) start--;
  return mark === '…' || end - start >= 3 ? start : -1;
}

/** Where the longest prefix of `secret` that ends at `end` starts (`end` when none does). */
function prefixBefore(text: string, end: number, secret: string): number {
  for (let chars = Math.min(end, secret.length - 1); chars > 0; chars--) {
    if (text.startsWith(secret.slice(0, chars), end - chars)) return end - chars;
  }
  return end;
}
