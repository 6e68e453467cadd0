/**
 * A small markdown parser for assistant messages: code blocks, inline code, emphasis,
 * lists, quotes, headings and links. It builds a tree of plain objects; the view turns it
 * into elements, never HTML text, so raw HTML in a message shows as text. Links keep only
 * http(s) targets. Unclosed constructs (a message still streaming) degrade to text or to a
 * code block running to the end, so the layout does not jump when the rest arrives.
 */

/** Inline content. */
export type Inline =
  | { type: 'text'; text: string }
  | { type: 'code'; text: string }
  | { type: 'strong'; children: Inline[] }
  | { type: 'em'; children: Inline[] }
  | { type: 'link'; href: string; children: Inline[] }
  | { type: 'break' };

/** Block content. */
export type Block =
  | { type: 'paragraph'; children: Inline[] }
  | { type: 'heading'; level: number; children: Inline[] }
  | { type: 'code'; lang: string; text: string }
  | { type: 'list'; ordered: boolean; start: number; items: Inline[][] }
  | { type: 'quote'; children: Block[] }
  | { type: 'rule' };

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?/;
const LIST_ITEM = /^\s*([-*+]|(\d{1,9})[.)])\s+(.*)$/;

/**
 * Deepest quote nesting parsed as quotes; deeper `>` stay text. Each level is a recursive
 * call, so a line of thousands of `>` would otherwise overflow the stack and take the
 * whole screen down with it.
 */
export const MAX_QUOTE_DEPTH = 16;

/** Parses markdown text into blocks. */
export function parseMarkdown(text: string): Block[] {
  return parseBlocks(text, 0);
}

/** Parses blocks inside `depth` quotes. */
function parseBlocks(text: string, depth: number): Block[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1]!;
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trimStart().startsWith(marker)) body.push(lines[i++]!);
      i++;
      blocks.push({ type: 'code', lang: fence[2] ?? '', text: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({
        type: 'heading',
        level: heading[1]!.length,
        children: parseInlines(heading[2]!),
      });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      blocks.push({ type: 'rule' });
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i]!)) body.push(lines[i++]!);
      blocks.push(
        depth < MAX_QUOTE_DEPTH
          ? {
              type: 'quote',
              children: parseBlocks(
                body.map((quoted) => quoted.replace(QUOTE, '')).join('\n'),
                depth + 1,
              ),
            }
          : { type: 'paragraph', children: parseInlines(body.join('\n')) },
      );
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const ordered = item[2] !== undefined;
      const items: string[][] = [];
      while (i < lines.length) {
        const current = lines[i]!;
        const next = LIST_ITEM.exec(current);
        if (next && (next[2] !== undefined) === ordered) {
          items.push([next[3]!]);
        } else if (current.trim() !== '' && !next && !startsBlock(current) && items.length > 0) {
          items.at(-1)!.push(current.trim());
        } else {
          break;
        }
        i++;
      }
      blocks.push({
        type: 'list',
        ordered,
        start: ordered ? Number(item[2]) : 1,
        items: items.map((parts) => parseInlines(parts.join('\n'))),
      });
      continue;
    }
    const body: string[] = [];
    while (
      i < lines.length &&
      lines[i]!.trim() !== '' &&
      (body.length === 0 || !startsBlock(lines[i]!))
    ) {
      body.push(lines[i++]!);
    }
    blocks.push({ type: 'paragraph', children: parseInlines(body.join('\n')) });
  }
  return blocks;
}

function startsBlock(line: string): boolean {
  return (
    FENCE.test(line) ||
    HEADING.test(line) ||
    RULE.test(line) ||
    QUOTE.test(line) ||
    LIST_ITEM.test(line)
  );
}

const ESCAPABLE = /[\\`*_{}[\]()#+\-.!~<>|]/;
const LINK = /^\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/;
const AUTOLINK = /^<(https?:\/\/[^>\s]+)>/;
const BARE_URL = /^https?:\/\/[^\s<]*[^\s<.,:;"')\]!?*_]/;

/** Parses inline markdown; a newline is a line break. */
export function parseInlines(text: string): Inline[] {
  const out: Inline[] = [];
  let plain = '';
  const flush = () => {
    if (plain !== '') out.push({ type: 'text', text: plain });
    plain = '';
  };
  // A marker not found from some position is not found from any later one either: so an
  // unclosed `*`, `_` or backtick scans the rest of the text once, not once per opener.
  const notFoundFrom = new Map<string, number>();
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const rest = text.slice(i);
    if (c === '\\' && i + 1 < text.length && ESCAPABLE.test(text[i + 1]!)) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (c === '\n') {
      flush();
      out.push({ type: 'break' });
      i++;
      continue;
    }
    if (c === '`') {
      const ticks = /^`+/.exec(rest)![0];
      const close = searchOnce(notFoundFrom, ticks, i + ticks.length, (from) =>
        text.indexOf(ticks, from),
      );
      if (close === -1) {
        plain += ticks;
        i += ticks.length;
        continue;
      }
      flush();
      const code = text.slice(i + ticks.length, close);
      const trimmed = /^ .* $/.test(code) && code.trim() !== '' ? code.slice(1, -1) : code;
      out.push({ type: 'code', text: trimmed });
      i = close + ticks.length;
      continue;
    }
    if (c === '*' || c === '_') {
      const marker = text[i + 1] === c ? c + c : c;
      const close = closingMarker(text, marker, i, notFoundFrom);
      if (close === -1) {
        plain += marker;
        i += marker.length;
        continue;
      }
      flush();
      const children = parseInlines(text.slice(i + marker.length, close));
      out.push(marker.length === 2 ? { type: 'strong', children } : { type: 'em', children });
      i = close + marker.length;
      continue;
    }
    if (c === '[') {
      const link = LINK.exec(rest);
      if (link) {
        flush();
        const children = parseInlines(link[1]!);
        const href = safeHref(link[2]!);
        if (href === undefined) out.push(...children);
        else out.push({ type: 'link', href, children });
        i += link[0].length;
        continue;
      }
    }
    if (c === '<') {
      const auto = AUTOLINK.exec(rest);
      const href = auto ? safeHref(auto[1]!) : undefined;
      if (auto && href !== undefined) {
        flush();
        out.push({ type: 'link', href, children: [{ type: 'text', text: auto[1]! }] });
        i += auto[0].length;
        continue;
      }
    }
    if (c === 'h' && (i === 0 || !/\w/.test(text[i - 1]!))) {
      const bare = BARE_URL.exec(rest);
      const href = bare ? safeHref(bare[0]) : undefined;
      if (bare && href !== undefined) {
        flush();
        out.push({ type: 'link', href, children: [{ type: 'text', text: bare[0] }] });
        i += bare[0].length;
        continue;
      }
    }
    plain += c;
    i++;
  }
  flush();
  return out;
}

/**
 * Where the emphasis opened at `open` closes, or -1. It opens only before a non-space
 * (and, for `_`, not inside a word) and closes after a non-space on the same marker.
 */
function closingMarker(
  text: string,
  marker: string,
  open: number,
  notFoundFrom: Map<string, number>,
): number {
  const start = open + marker.length;
  if (start >= text.length || /\s/.test(text[start]!)) return -1;
  if (marker[0] === '_' && open > 0 && /\w/.test(text[open - 1]!)) return -1;
  return searchOnce(notFoundFrom, marker, start + 1, (from) => {
    let at = text.indexOf(marker, from);
    while (at !== -1) {
      const single = marker.length === 1 && text[at + 1] === marker;
      if (!/\s/.test(text[at - 1]!) && !single) return at;
      at = text.indexOf(marker, single ? at + 2 : at + 1);
    }
    return -1;
  });
}

/** `search(from)`, skipped (-1) when the same key was already not found from `from` or before. */
function searchOnce(
  notFoundFrom: Map<string, number>,
  key: string,
  from: number,
  search: (from: number) => number,
): number {
  const failed = notFoundFrom.get(key);
  if (failed !== undefined && from >= failed) return -1;
  const found = search(from);
  if (found === -1) notFoundFrom.set(key, Math.min(from, failed ?? from));
  return found;
}

/** The link target when it is an absolute http(s) URL; anything else is not linked. */
export function safeHref(target: string): string | undefined {
  try {
    const url = new URL(target);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
