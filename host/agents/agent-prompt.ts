/**
 * The task as an ACP prompt: its text (with what was attached as text), and its images as
 * image blocks when the agent says it takes them; else the prompt says they were not sent.
 */
import type { ContentBlock } from '@agentclientprotocol/sdk';

/** `images` are data: URLs. */
export function taskPrompt(
  text: string,
  images: readonly string[],
  takesImages: boolean,
): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  const note =
    images.length > 0 && !takesImages
      ? `\n\n(${images.length} attached image(s) were not sent: this agent does not take images.)`
      : '';
  blocks.push({ type: 'text', text: text + note });
  if (takesImages) {
    for (const url of images) {
      const match = /^data:([^;]+);base64,(.*)$/s.exec(url);
      if (match !== null) blocks.push({ type: 'image', mimeType: match[1]!, data: match[2]! });
    }
  }
  return blocks;
}
