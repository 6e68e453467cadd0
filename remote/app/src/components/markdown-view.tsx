/**
 * Markdown as elements (see logic/markdown.ts): never HTML text, links only to http(s),
 * opened in a new context without access to this one.
 */
import type { ComponentChildren } from 'preact';
import { useMemo } from 'preact/hooks';
import { type Block, type Inline, parseMarkdown } from '../logic/markdown.js';

export function MarkdownView({ text }: { text: string }) {
  const blocks = useMemo(() => parseMarkdown(text), [text]);
  return <div class="markdown">{blocks.map(renderBlock)}</div>;
}

function renderBlock(block: Block, key: number): ComponentChildren {
  switch (block.type) {
    case 'paragraph':
      return <p key={key}>{block.children.map(renderInline)}</p>;
    case 'heading': {
      const Tag = `h${Math.min(6, block.level + 2)}` as 'h3';
      return <Tag key={key}>{block.children.map(renderInline)}</Tag>;
    }
    case 'code':
      return (
        <pre key={key} class="code-block" data-lang={block.lang || undefined}>
          <code>{block.text}</code>
        </pre>
      );
    case 'list': {
      const items = block.items.map((item, i) => <li key={i}>{item.map(renderInline)}</li>);
      return block.ordered ? (
        <ol key={key} start={block.start}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case 'quote':
      return <blockquote key={key}>{block.children.map(renderBlock)}</blockquote>;
    case 'rule':
      return <hr key={key} />;
  }
}

function renderInline(inline: Inline, key: number): ComponentChildren {
  switch (inline.type) {
    case 'text':
      return inline.text;
    case 'code':
      return <code key={key}>{inline.text}</code>;
    case 'strong':
      return <strong key={key}>{inline.children.map(renderInline)}</strong>;
    case 'em':
      return <em key={key}>{inline.children.map(renderInline)}</em>;
    case 'link':
      return (
        <a key={key} href={inline.href} target="_blank" rel="noopener noreferrer">
          {inline.children.map(renderInline)}
        </a>
      );
    case 'break':
      return <br key={key} />;
  }
}
