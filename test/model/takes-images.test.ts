/**
 * Issue 28: `takesImages` (host/model/provider-rules.ts) knows which models take images by
 * their name, whatever the provider serves them under; a model it does not know is
 * undefined (sent its images, the provider's answer counts), never false.
 */
import { describe, expect, it } from 'vitest';
import { takesImages } from '../../host/model/testing.js';

describe('takesImages', () => {
  it.each([
    'deepseek-chat',
    'deepseek-reasoner',
    'deepseek/deepseek-chat-v3',
    'moonshotai/kimi-k2-instruct',
    'codestral-latest',
    'devstral-small-2505',
    'gpt-3.5-turbo',
  ])('knows %s takes none', (model) => {
    expect(takesImages(model)).toBe(false);
  });

  it.each([
    'gpt-4o',
    'gpt-4o-mini',
    'gpt-4.1',
    'gpt-5',
    'o3',
    'o4-mini',
    'claude-sonnet-4-5',
    'anthropic/claude-opus-4',
    'gemini-2.5-flash',
    'google/gemini-2.5-pro',
    'pixtral-large-latest',
    'mistral-medium-2508',
    'mistral-small-latest',
    'grok-4',
    'grok-2-vision-1212',
    'meta-llama/llama-4-scout',
    'llava:13b',
    'gemma3:27b',
    'gemma-3-12b-it',
    'qwen2.5-vl-72b-instruct',
    'qwen-vl-max',
  ])('knows %s takes images', (model) => {
    expect(takesImages(model)).toBe(true);
  });

  it('reads a name whatever its case', () => {
    expect(takesImages('GPT-4o')).toBe(true);
    expect(takesImages('DeepSeek-Chat')).toBe(false);
  });

  it.each(['qwen3', 'llama3.1:8b', 'mistral-large-latest', 'my-model'])(
    'does not know %s (undefined: sent its images, not refused)',
    (model) => {
      expect(takesImages(model)).toBeUndefined();
    },
  );

  it('matches a known name only at the start of the name or after a router prefix', () => {
    // "mygpt-4o" is not GPT-4o, and "notdeepseek-chat" is not DeepSeek's.
    expect(takesImages('mygpt-4o')).toBeUndefined();
    expect(takesImages('notdeepseek-chat')).toBeUndefined();
  });
});
