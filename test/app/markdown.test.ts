import { describe, expect, it } from 'vitest';
import {
  MAX_QUOTE_DEPTH,
  parseInlines,
  parseMarkdown,
  safeHref,
} from '../../remote/app/src/logic/markdown.js';

describe('markdown', () => {
  it('parses code blocks, lists, headings and paragraphs', () => {
    const blocks = parseMarkdown(
      '# Title\n\nSome *em* and **strong**.\n\n```ts\nconst a = 1;\n```\n- one\n- two\n\n1. first\n2. second',
    );
    expect(blocks.map((block) => block.type)).toEqual([
      'heading',
      'paragraph',
      'code',
      'list',
      'list',
    ]);
    expect(blocks[2]).toEqual({ type: 'code', lang: 'ts', text: 'const a = 1;' });
    expect(blocks[3]).toMatchObject({
      type: 'list',
      ordered: false,
      items: [[{ type: 'text', text: 'one' }], [{ type: 'text', text: 'two' }]],
    });
    expect(blocks[4]).toMatchObject({ type: 'list', ordered: true, start: 1 });
    expect(blocks[1]).toEqual({
      type: 'paragraph',
      children: [
        { type: 'text', text: 'Some ' },
        { type: 'em', children: [{ type: 'text', text: 'em' }] },
        { type: 'text', text: ' and ' },
        { type: 'strong', children: [{ type: 'text', text: 'strong' }] },
        { type: 'text', text: '.' },
      ],
    });
  });

  it('keeps raw HTML as text', () => {
    expect(parseInlines('<img src=x onerror=alert(1)> <b>x</b>')).toEqual([
      { type: 'text', text: '<img src=x onerror=alert(1)> <b>x</b>' },
    ]);
  });

  it('links only http(s) targets', () => {
    expect(parseInlines('[ok](https://example.com/a)')).toEqual([
      { type: 'link', href: 'https://example.com/a', children: [{ type: 'text', text: 'ok' }] },
    ]);
    expect(parseInlines('[bad](javascript:alert(1))')).toEqual([
      { type: 'text', text: 'bad' },
      { type: 'text', text: ')' },
    ]);
    expect(parseInlines('[data](data:text/html,x)')).toEqual([{ type: 'text', text: 'data' }]);
    expect(safeHref('JaVaScRiPt:alert(1)')).toBeUndefined();
    expect(safeHref('/relative')).toBeUndefined();
    expect(parseInlines('see https://example.com/x.')).toEqual([
      { type: 'text', text: 'see ' },
      {
        type: 'link',
        href: 'https://example.com/x',
        children: [{ type: 'text', text: 'https://example.com/x' }],
      },
      { type: 'text', text: '.' },
    ]);
  });

  it('reads inline code literally and leaves unclosed markers as text', () => {
    expect(parseInlines('`a *b*` and *open')).toEqual([
      { type: 'code', text: 'a *b*' },
      { type: 'text', text: ' and *open' },
    ]);
    expect(parseInlines('snake_case_name')).toEqual([{ type: 'text', text: 'snake_case_name' }]);
  });

  it('leaves thousands of unclosed markers as text, each looked for once', () => {
    const globs = '*a _c '.repeat(20_000) + '`b';
    expect(parseInlines(globs)).toEqual([{ type: 'text', text: globs }]);
    // An unclosed `*` does not hide a later `**` pair.
    expect(parseInlines('*open **bold** x')).toEqual([
      { type: 'text', text: '*open ' },
      { type: 'strong', children: [{ type: 'text', text: 'bold' }] },
      { type: 'text', text: ' x' },
    ]);
  });

  it('runs an unclosed code fence (still streaming) to the end', () => {
    expect(parseMarkdown('Here:\n```\nline 1\nline 2')).toEqual([
      { type: 'paragraph', children: [{ type: 'text', text: 'Here:' }] },
      { type: 'code', lang: '', text: 'line 1\nline 2' },
    ]);
  });

  it('nests quotes only so deep, so a line of many > cannot overflow the stack', () => {
    const blocks = parseMarkdown(`${'>'.repeat(50_000)} deep`);
    let depth = 0;
    let block = blocks[0];
    while (block?.type === 'quote') {
      depth++;
      block = block.children[0];
    }
    expect(depth).toBe(MAX_QUOTE_DEPTH);
    expect(block).toEqual({
      type: 'paragraph',
      children: [{ type: 'text', text: `${'>'.repeat(50_000 - MAX_QUOTE_DEPTH)} deep` }],
    });
    expect(parseMarkdown('> > two')).toEqual([
      {
        type: 'quote',
        children: [
          {
            type: 'quote',
            children: [{ type: 'paragraph', children: [{ type: 'text', text: 'two' }] }],
          },
        ],
      },
    ]);
  });
});
