/**
 * Gemini 2.5's thought text in content: through the OpenAI-compatible endpoint it streams
 * `<thought>…</thought>` at the start of the content, in chunks marked
 * `extra_content.google.thought`, and the answer after the closing tag, in the same chunk
 * or the next, marked or not. Tags may be split across chunks at any character.
 */

const OPEN = '<thought>';
const CLOSE = '</thought>';

/** One piece of content, read as thought (reasoning) or as the answer (text). */
export interface ContentPiece {
  readonly kind: 'text' | 'reasoning';
  readonly text: string;
}

/**
 * - `start`: no content yet; an opening tag here begins a thought.
 * - `tagged`: inside `<thought>`, until `</thought>` whatever the marks.
 * - `marked`: inside marked content without an opening tag, until `</thought>` or the
 *   first unmarked chunk.
 * - `answer`: after the thought (or with none); content is the answer, except chunks
 *   marked thought, which are thought.
 */
type ThoughtState = 'start' | 'tagged' | 'marked' | 'answer';

/** Splits one turn's content into thought and answer. Make a new one for each attempt. */
export class ThoughtSplitter {
  #state: ThoughtState = 'start';
  /** A tail that may be the start of a tag, held until the next chunk tells. */
  #held = '';

  /** Takes one chunk's content (`marked`: a thought-marked chunk) and returns its pieces. */
  push(content: string, marked: boolean): ContentPiece[] {
    const pieces: ContentPiece[] = [];
    const held = this.#held;
    this.#held = '';
    // Marked content is thought, except the answer after a closing tag in the same chunk.
    const markedThought = marked && this.#state === 'answer';
    let rest = held + content;
    if (this.#state === 'start') rest = this.#leaveStart(rest, marked);
    else if (this.#state === 'marked' && !marked) rest = this.#leaveMarked(held, content, pieces);
    if (this.#state === 'tagged' || this.#state === 'marked') rest = this.#thought(rest, pieces);
    if (this.#state === 'answer' && rest !== '') {
      pieces.push(
        markedThought ? reasoning(rest.replaceAll(OPEN, '').replaceAll(CLOSE, '')) : text(rest),
      );
    }
    return pieces.filter((piece) => piece.text !== '');
  }

  /** What is still held back, once the turn has finished. */
  flush(): ContentPiece[] {
    const held = this.#held;
    this.#held = '';
    if (held === '') return [];
    return [this.#state === 'tagged' || this.#state === 'marked' ? reasoning(held) : text(held)];
  }

  #leaveStart(content: string, marked: boolean): string {
    if (content.startsWith(OPEN)) {
      this.#state = 'tagged';
      return content.slice(OPEN.length);
    }
    if (OPEN.startsWith(content)) {
      this.#held = content;
      return '';
    }
    this.#state = marked ? 'marked' : 'answer';
    return content;
  }

  // An unmarked chunk after untagged thought is the answer, less a closing tag it opens with;
  // a held tail that does not make that tag was thought.
  #leaveMarked(held: string, content: string, pieces: ContentPiece[]): string {
    const joined = held + content;
    if (CLOSE.startsWith(joined)) {
      this.#held = joined;
      return '';
    }
    this.#state = 'answer';
    if (joined.startsWith(CLOSE)) return joined.slice(CLOSE.length);
    pieces.push(reasoning(held));
    return content;
  }

  #thought(content: string, pieces: ContentPiece[]): string {
    const end = content.indexOf(CLOSE);
    if (end >= 0) {
      pieces.push(reasoning(content.slice(0, end).replaceAll(OPEN, '')));
      this.#state = 'answer';
      return content.slice(end + CLOSE.length);
    }
    const keep = partialTagLength(content);
    this.#held = content.slice(content.length - keep);
    pieces.push(reasoning(content.slice(0, content.length - keep).replaceAll(OPEN, '')));
    return '';
  }
}

/** How many of `content`'s last characters could begin a tag. */
function partialTagLength(content: string): number {
  for (let length = Math.min(content.length, CLOSE.length - 1); length > 0; length -= 1) {
    const tail = content.slice(content.length - length);
    if (CLOSE.startsWith(tail) || OPEN.startsWith(tail)) return length;
  }
  return 0;
}

function text(value: string): ContentPiece {
  return { kind: 'text', text: value };
}

function reasoning(value: string): ContentPiece {
  return { kind: 'reasoning', text: value };
}
