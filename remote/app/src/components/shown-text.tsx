/**
 * Text from a tool call as children that hide nothing: each control, bidi or invisible
 * character appears as its escape (`\x1b`, `\u{202E}`) in a marked
 * `<span class="escaped">`, so it cannot pass for typed text (remote/client
 * `visibleParts`). A function, not a component: it is on every card and diff line, and
 * the parts alternate, so diffing them by index (no keys) is right.
 */
import { visibleParts } from '#client';

export function shownText(text: string) {
  return visibleParts(text).map((part, i) =>
    i % 2 === 1 ? <span class="escaped">{part}</span> : part,
  );
}
