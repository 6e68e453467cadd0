/**
 * A child process's output (an MCP server's or an agent's stderr) as lines for the log,
 * each cut at `maxChars` as it comes: a program that writes megabytes without a newline
 * is never held whole, where readline would buffer the line until it ends.
 */
import type { Readable } from 'node:stream';

/**
 * Calls `onLine` with each line of `stream` (without its `\n` or `\r\n`), at most
 * `maxChars` characters of it; `cut` says the rest of that line was dropped.
 */
export function childLines(
  stream: Readable,
  maxChars: number,
  onLine: (line: string, cut: boolean) => void,
): void {
  let line = '';
  let cut = false;
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const parts = chunk.split('\n');
    parts.forEach((part, index) => {
      if (!cut) {
        line += part.slice(0, maxChars + 1 - line.length);
        if (line.length > maxChars) {
          onLine(line.slice(0, maxChars), true);
          line = '';
          cut = true;
        }
      }
      if (index === parts.length - 1) return;
      if (!cut) onLine(line.replace(/\r$/, ''), false);
      line = '';
      cut = false;
    });
  });
  stream.once('end', () => {
    if (!cut && line !== '') onLine(line.replace(/\r$/, ''), false);
  });
}
