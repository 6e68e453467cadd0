/**
 * Issue 24, "One answer that shows what it should not": Gemini 2.5 streams its thought in
 * `<thought>…</thought>` and the answer after the closing tag, in the same chunk or the
 * next. Neither tag reaches the answer, wherever the stream is split: at every point in
 * two chunks (tags cut anywhere), and one character a chunk, through the real adapter and
 * the scripted server, with the chunks marked thought as Gemini marks them, or not at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelAdapter } from '../../host/model/index.js';
import type { StreamTurn } from '../support/scripted-model-server.js';
import { startScriptedModelServer } from '../support/scripted-model-server.js';
import type { ScriptedModelServer } from '../support/scripted-model-server.js';
import { collect, completionOf, userRequest } from './adapter-harness.js';

const THOUGHT = '**Greeting**\nThe user says hello in Chinese.';
const ANSWER = '你好！今天有什么可以帮你的吗？';
const CONTENT = `<thought>${THOUGHT}</thought>${ANSWER}`;
/** Where the thought ends: characters before this are thought or its tags. */
const THOUGHT_END = CONTENT.indexOf(ANSWER);

/**
 * Which chunks carry `extra_content.google.thought`: none; only the one the stream opens
 * with (the answer's chunk, closing tag first, unmarked: what leaked in issue 24); or every
 * chunk holding part of the thought or its tags.
 */
type Marking = 'none' | 'opening' | 'thought';

function turnOf(pieces: string[], marking: Marking): StreamTurn {
  let offset = 0;
  const items = pieces.map((piece, position) => {
    const marked =
      marking === 'thought' ? offset < THOUGHT_END : marking === 'opening' && position === 0;
    offset += piece.length;
    const extra = marked ? { extra_content: { google: { thought: true } } } : {};
    return { delta: { role: 'assistant', content: piece, ...extra } };
  });
  return { kind: 'stream', items };
}

let server: ScriptedModelServer;

beforeAll(async () => {
  server = await startScriptedModelServer();
});

afterAll(async () => {
  await server.close();
});

async function streamed(turn: StreamTurn) {
  server.push(turn);
  const adapter = createModelAdapter({ baseUrl: server.baseUrl, apiKey: 'k', provider: 'gemini' });
  const events = await collect(adapter.stream(userRequest('你好'), new AbortController().signal));
  const text = events.flatMap((event) => (event.type === 'text' ? [event.delta] : [])).join('');
  const reasoning = events.flatMap((event) => (event.type === 'reasoning' ? [event.delta] : []));
  return { text, reasoning: reasoning.join(''), completion: completionOf(events) };
}

const SPLIT_POINTS = Array.from({ length: CONTENT.length - 1 }, (_, index) => index + 1);

describe.each<Marking>(['none', 'opening', 'thought'])('chunks marked: %s', (marking) => {
  it('in two chunks split at every point, the answer is the answer and the thought is reasoning', async () => {
    for (const at of SPLIT_POINTS) {
      const pieces = [CONTENT.slice(0, at), CONTENT.slice(at)];
      const { text, reasoning, completion } = await streamed(turnOf(pieces, marking));

      const where = `split at ${at}: ${JSON.stringify(pieces)}`;
      expect(text, where).toBe(ANSWER);
      expect(completion.text, where).toBe(ANSWER);
      expect(reasoning, where).toBe(THOUGHT);
      expect(completion.reasoning, where).toBe(THOUGHT);
    }
  });

  it('one character a chunk, every tag cut at each of its characters', async () => {
    const { text, reasoning, completion } = await streamed(turnOf([...CONTENT], marking));

    expect(text).toBe(ANSWER);
    expect(completion).toMatchObject({ text: ANSWER, reasoning: THOUGHT, finishReason: 'stop' });
    expect(reasoning).toBe(THOUGHT);
  });
});

describe('content that is not a Gemini thought', () => {
  it('keeps tags an answer writes itself, and a lone "<" at its end', async () => {
    const answer = 'Wrap it in <thought> and end with </thought>, then compare a <';
    for (const at of [1, 2, 12, 14, answer.length - 1]) {
      const pieces = [answer.slice(0, at), answer.slice(at)];
      const { text, reasoning } = await streamed(turnOf(pieces, 'none'));

      expect(text, `split at ${at}`).toBe(answer);
      expect(reasoning).toBe('');
    }
  });

  it('takes marked thought without tags as reasoning until the first unmarked chunk', async () => {
    const turn: StreamTurn = {
      kind: 'stream',
      items: [
        { delta: { content: 'Thinking a<', extra_content: { google: { thought: true } } } },
        { delta: { content: '<b>bold</b> answer' } },
      ],
    };

    const { text, reasoning } = await streamed(turn);

    expect(reasoning).toBe('Thinking a<');
    expect(text).toBe('<b>bold</b> answer');
  });
});
