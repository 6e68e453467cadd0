/**
 * A child's stderr as lines for the log (host/log/child-lines.ts): a line is cut as it
 * comes, so a program that writes without a newline is never held whole in the host.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { childLines } from '../../host/log/index.js';

function linesOf(chunks: (string | Buffer)[], maxChars: number) {
  const stream = new PassThrough();
  const lines: [string, boolean][] = [];
  childLines(stream, maxChars, (line, cut) => lines.push([line, cut]));
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  return new Promise<[string, boolean][]>((resolve) => stream.once('end', () => resolve(lines)));
}

describe('childLines', () => {
  it('splits on newlines across chunks, drops \\r, and gives the last line without one', async () => {
    expect(await linesOf(['a\r\nb', 'c\n\nd'], 10)).toEqual([
      ['a', false],
      ['bc', false],
      ['', false],
      ['d', false],
    ]);
  });

  it('cuts a line at its maximum as it comes and drops the rest of it, however long', async () => {
    const megabyte = 'x'.repeat(1024 * 1024);
    const lines = await linesOf([megabyte, megabyte, 'tail\nnext\n'], 8);
    expect(lines).toEqual([
      ['xxxxxxxx', true],
      ['next', false],
    ]);
  });

  it('keeps a character split between chunks whole', async () => {
    const bytes = Buffer.from('é\n');
    expect(await linesOf([bytes.subarray(0, 1), bytes.subarray(1)], 4)).toEqual([['é', false]]);
  });
});
