/**
 * Text from a tool call shown so nothing in it hides: each control, bidi or invisible
 * character appears as its escape (`\x1b`, `\u{202E}`) in a marked `<span class="escaped">`,
 * so it cannot pass for typed text (remote/client `visibleParts`).
 */
import { visibleParts } from '../../../../remote/client/index.js';

export function ShownText({ text }: { text: string }) {
  return (
    <>
      {visibleParts(text).map((part, i) =>
        part.escaped ? (
          <span key={i} class="escaped">
            {part.text}
          </span>
        ) : (
          part.text
        ),
      )}
    </>
  );
}
