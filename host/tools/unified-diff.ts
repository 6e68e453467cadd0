/**
 * Unified diffs of a file's bytes before and after a write: Myers' shortest edit script on
 * lines, three lines of context, `\ No newline at end of file` where it applies. Past a
 * work budget the changed middle (after the common head and tail) becomes one hunk.
 */
import { isUtf8 } from 'node:buffer';
import { formatBytes } from './format-bytes.js';

/** A diff and how many lines it adds and removes. */
export interface UnifiedDiff {
  /** Empty when nothing changed. */
  text: string;
  added: number;
  removed: number;
  /** Either side is not UTF-8 text; `text` then says only that the files differ. */
  binary: boolean;
}

/** Half-open line ranges `[aStart, aEnd)` of the old file replaced by `[bStart, bEnd)`. */
interface Change {
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

const CONTEXT_LINES = 3;
const NUL_SNIFF_BYTES = 8 * 1024;
// Bounds on the search for a minimal script, past which the changed middle becomes one
// hunk: edits (its memory is about MAX_EDITS² numbers, 16 MiB) and line comparisons
// (a fraction of a second).
const MAX_EDITS = 2000;
const MAX_WORK = 50_000_000;

/**
 * The unified diff turning `before` (null: the file does not exist) into `after`, with
 * `a/<path>` and `b/<path>` headers (`/dev/null` for a new file).
 */
export function unifiedDiff(before: Buffer | null, after: Buffer, path: string): UnifiedDiff {
  const oldName = before === null ? '/dev/null' : `a/${path}`;
  if (before !== null && before.equals(after)) {
    return { text: '', added: 0, removed: 0, binary: false };
  }
  if ((before !== null && isBinary(before)) || isBinary(after)) {
    return {
      text: `Binary files ${oldName} and b/${path} differ\n`,
      added: 0,
      removed: 0,
      binary: true,
    };
  }
  const a = splitLines(before === null ? '' : before.toString('utf8'));
  const b = splitLines(after.toString('utf8'));
  const changes = diffLines(a, b);
  let added = 0;
  let removed = 0;
  for (const change of changes) {
    removed += change.aEnd - change.aStart;
    added += change.bEnd - change.bStart;
  }
  const text = `--- ${oldName}\n+++ b/${path}\n${formatHunks(a, b, changes)}`;
  return { text, added, removed, binary: false };
}

/**
 * `diff` cut at a line boundary so that it and a last line saying it was cut fit in
 * `maxBytes` (UTF-8). A diff that fits is returned as it is.
 */
export function capDiff(diff: string, maxBytes: number): string {
  const bytes = Buffer.from(diff, 'utf8');
  if (bytes.length <= maxBytes) return diff;
  const totalLines = diff.split('\n').length - (diff.endsWith('\n') ? 1 : 0);
  // The note is at most ~120 bytes; keep room for it whatever the numbers.
  const kept = bytes.subarray(0, Math.max(0, maxBytes - 160));
  const text = kept.subarray(0, kept.lastIndexOf(0x0a) + 1).toString('utf8');
  const shown = text.split('\n').length - 1;
  return (
    `${text}[diff cut at ${formatBytes(maxBytes)}: ${shown} of ${totalLines} lines shown; ` +
    `the write's result keeps the whole diff]\n`
  );
}

function isBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, NUL_SNIFF_BYTES).includes(0) || !isUtf8(bytes);
}

/** Lines with their `\n`; a last line without one is kept as it is. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  const last = lines.pop() ?? '';
  const out = lines.map((line) => `${line}\n`);
  if (last !== '') out.push(last);
  return out;
}

/** The changed ranges, in order, between lines `a` and `b`. */
function diffLines(a: readonly string[], b: readonly string[]): Change[] {
  // Lines become small integers so the inner loop compares numbers, not strings.
  const ids = new Map<string, number>();
  const intern = (line: string) => {
    let id = ids.get(line);
    if (id === undefined) {
      id = ids.size;
      ids.set(line, id);
    }
    return id;
  };
  const left = Int32Array.from(a, intern);
  const right = Int32Array.from(b, intern);
  let head = 0;
  while (head < left.length && head < right.length && left[head] === right[head]) head += 1;
  let tail = 0;
  while (
    tail < left.length - head &&
    tail < right.length - head &&
    left[left.length - 1 - tail] === right[right.length - 1 - tail]
  ) {
    tail += 1;
  }
  const middle: Change = {
    aStart: head,
    aEnd: left.length - tail,
    bStart: head,
    bEnd: right.length - tail,
  };
  if (middle.aStart === middle.aEnd && middle.bStart === middle.bEnd) return [];
  if (middle.aStart === middle.aEnd || middle.bStart === middle.bEnd) return [middle];
  const script = shortestEditScript(
    left.subarray(middle.aStart, middle.aEnd),
    right.subarray(middle.bStart, middle.bEnd),
  );
  if (script === null) return [middle];
  return script.map((change) => ({
    aStart: change.aStart + head,
    aEnd: change.aEnd + head,
    bStart: change.bStart + head,
    bEnd: change.bEnd + head,
  }));
}

/**
 * Myers' O((N+M)D) algorithm ("An O(ND) Difference Algorithm and Its Variations", 1986).
 * Keeps each round's furthest points, `2d+1` of them, for the walk back: O(D²) memory.
 * Returns null past the bounds above.
 */
function shortestEditScript(a: Int32Array, b: Int32Array): Change[] | null {
  const n = a.length;
  const m = b.length;
  const trace: Int32Array[] = [];
  let previous = new Int32Array(0);
  let work = 0;
  for (let d = 0; d <= Math.min(n + m, MAX_EDITS); d += 1) {
    const furthest = new Int32Array(2 * d + 1);
    for (let k = -d; k <= d; k += 2) {
      const start = d === 0 ? 0 : startOfRound(previous, d, k);
      let x = start;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      work += x - start + 1;
      furthest[k + d] = x;
      if (x >= n && y >= m) {
        trace.push(furthest);
        return walkBack(trace, n, m);
      }
    }
    trace.push(furthest);
    previous = furthest;
    if (work > MAX_WORK) return null;
  }
  return null;
}

// Round d-1 holds diagonals -(d-1)..d-1 at indexes 0..2d-2, so these reads are in range.

/** Whether the d-path on diagonal `k` extends the (d-1)-path on `k+1` by a step down. */
function comesDown(previous: Int32Array, d: number, k: number): boolean {
  return k === -d || (k !== d && previous[k + d - 2]! < previous[k + d]!);
}

function startOfRound(previous: Int32Array, d: number, k: number): number {
  return comesDown(previous, d, k) ? previous[k + d]! : previous[k + d - 2]! + 1;
}

function at<T>(values: ArrayLike<T>, index: number): T {
  const value = values[index];
  if (value === undefined) throw new Error(`index ${index} out of range`);
  return value;
}

function walkBack(trace: Int32Array[], n: number, m: number): Change[] {
  const changes: Change[] = [];
  let x = n;
  let y = m;
  // The end of the change being collected (the walk goes backwards), or -1 for none.
  let aEnd = -1;
  let bEnd = -1;
  const close = () => {
    if (aEnd === -1) return;
    changes.push({ aStart: x, aEnd, bStart: y, bEnd });
    aEnd = -1;
    bEnd = -1;
  };
  for (let d = trace.length - 1; d > 0; d -= 1) {
    const previous = at(trace, d - 1);
    const k = x - y;
    const down = comesDown(previous, d, k);
    const fromK = down ? k + 1 : k - 1;
    const fromX = previous[fromK + d - 1]!;
    const fromY = fromX - fromK;
    const snakeX = down ? fromX : fromX + 1;
    if (x > snakeX) close();
    x = snakeX;
    y = snakeX - k;
    if (aEnd === -1) {
      aEnd = x;
      bEnd = y;
    }
    x = fromX;
    y = fromY;
  }
  close();
  return changes.reverse();
}

function formatHunks(a: readonly string[], b: readonly string[], changes: Change[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < changes.length) {
    let j = i;
    // Changes closer than twice the context share a hunk, as in GNU diff.
    while (
      j + 1 < changes.length &&
      at(changes, j + 1).aStart - at(changes, j).aEnd <= 2 * CONTEXT_LINES
    ) {
      j += 1;
    }
    const first = at(changes, i);
    const last = at(changes, j);
    const aStart = Math.max(0, first.aStart - CONTEXT_LINES);
    const aEnd = Math.min(a.length, last.aEnd + CONTEXT_LINES);
    const bStart = first.bStart - (first.aStart - aStart);
    const bEnd = last.bEnd + (aEnd - last.aEnd);
    out.push(`@@ -${range(aStart, aEnd)} +${range(bStart, bEnd)} @@\n`);
    let cursor = aStart;
    for (let c = i; c <= j; c += 1) {
      const change = at(changes, c);
      for (; cursor < change.aStart; cursor += 1) out.push(diffLine(' ', at(a, cursor)));
      for (let l = change.aStart; l < change.aEnd; l += 1) out.push(diffLine('-', at(a, l)));
      for (let l = change.bStart; l < change.bEnd; l += 1) out.push(diffLine('+', at(b, l)));
      cursor = change.aEnd;
    }
    for (; cursor < aEnd; cursor += 1) out.push(diffLine(' ', at(a, cursor)));
    i = j + 1;
  }
  return out.join('');
}

/** `start,count` of a hunk header; `start` is the line before an empty range (GNU diff). */
function range(start: number, end: number): string {
  const count = end - start;
  if (count === 0) return `${start},0`;
  if (count === 1) return `${start + 1}`;
  return `${start + 1},${count}`;
}

function diffLine(prefix: string, line: string): string {
  return line.endsWith('\n')
    ? `${prefix}${line}`
    : `${prefix}${line}\n\\ No newline at end of file\n`;
}
