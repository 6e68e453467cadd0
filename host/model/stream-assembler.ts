/**
 * Assembles one attempt's chunks into stream events and, at the end, a completion or a
 * failure: text and reasoning joined, tool-call fragments matched by index or id, native
 * delta fields collected, usage read from whichever chunk carries it.
 */
import { z } from 'zod';
import type { ChatChunk, ChatDelta, ToolCallDelta } from './chat-chunk.js';
import { toModelUsage } from './chat-chunk.js';
import { finishReasonFailure, modelFailure } from './error-classes.js';
import { REASONING_DELTA_FIELDS, TOOL_CALL_NATIVE_KEY } from './provider-rules.js';
import { ThoughtSplitter } from './thought-tags.js';
import type { ContentPiece } from './thought-tags.js';
import type { ModelCompletion, ModelFailure, ModelStreamEvent, ModelUsage } from './types.js';

/** How an attempt ended: a completed turn or a failure. */
export type AttemptResult =
  { type: 'completed'; message: ModelCompletion } | { type: 'failed'; error: ModelFailure };

interface ToolCallSlot {
  readonly position: number;
  id: string;
  name: string;
  arguments: string;
  /** The call's own provider fields (Gemini 3's `extra_content`), latest value each. */
  readonly native: Record<string, unknown>;
}

/**
 * Delta fields with a meaning of their own; every other field is provider-native.
 * `extra_content` on a delta is Gemini's thought marker, read here, not sent back.
 */
const TYPED_DELTA_FIELDS = new Set([
  'role',
  'content',
  'refusal',
  'tool_calls',
  'function_call',
  'extra_content',
]);

/** Tool-call fragment fields with a meaning of their own; others belong to that call. */
const TYPED_TOOL_CALL_FIELDS = new Set(['index', 'id', 'type', 'function']);

const geminiThoughtSchema = z.looseObject({
  google: z.looseObject({ thought: z.literal(true) }),
});

/** Collects one attempt's chunks. Make a new one for each attempt. */
export class StreamAssembler {
  #text = '';
  #reasoning = '';
  #refusal = '';
  #finishReason: string | undefined;
  #usage: ModelUsage | undefined;
  readonly #native: Record<string, unknown> = {};
  readonly #toolCalls: ToolCallSlot[] = [];
  readonly #slotByIndex = new Map<number, ToolCallSlot>();
  readonly #thoughts = new ThoughtSplitter();

  /** Whether a finish reason has arrived (a usage-only chunk may still follow). */
  get finished(): boolean {
    return this.#finishReason !== undefined;
  }

  /** Takes one chunk and returns the events it makes, in order. */
  push(chunk: ChatChunk): ModelStreamEvent[] {
    if (chunk.usage) this.#usage = toModelUsage(chunk.usage);
    // Only one choice is ever requested (no `n`): the first is the answer.
    const choice = chunk.choices?.[0];
    if (!choice) return [];
    // Moonshot/Kimi put usage inside the finishing choice instead.
    if (choice.usage) this.#usage = toModelUsage(choice.usage);
    if (choice.finish_reason) this.#finishReason = choice.finish_reason;
    const events = choice.delta ? this.#pushDelta(choice.delta) : [];
    if (choice.finish_reason) this.#pushContent(this.#thoughts.flush(), events);
    return events;
  }

  #pushDelta(delta: ChatDelta): ModelStreamEvent[] {
    const events: ModelStreamEvent[] = [];
    this.#collectNative(delta);
    const reasoning = REASONING_DELTA_FIELDS.map((field) => delta[field]).find(
      (value): value is string => typeof value === 'string' && value !== '',
    );
    if (reasoning !== undefined) this.#pushReasoning(reasoning, events);
    const { content } = delta;
    if (typeof content === 'string') {
      const marked = geminiThoughtSchema.safeParse(delta.extra_content).success;
      this.#pushContent(this.#thoughts.push(content, marked), events);
    }
    for (const part of Array.isArray(content) ? content : []) {
      if (part.type === 'text' && part.text) this.#pushText(part.text, events);
      if (part.type !== 'thinking') continue;
      for (const piece of part.thinking ?? []) {
        if (piece.type === 'text' && piece.text) this.#pushReasoning(piece.text, events);
      }
    }
    if (delta.refusal) this.#refusal += delta.refusal;
    for (const fragment of delta.tool_calls ?? []) {
      const event = this.#pushToolCall(fragment);
      if (event) events.push(event);
    }
    return events;
  }

  #pushContent(pieces: ContentPiece[], events: ModelStreamEvent[]): void {
    for (const piece of pieces) {
      if (piece.kind === 'text') this.#pushText(piece.text, events);
      else this.#pushReasoning(piece.text, events);
    }
  }

  #pushText(text: string, events: ModelStreamEvent[]): void {
    if (text === '') return;
    this.#text += text;
    events.push({ type: 'text', delta: text });
  }

  #pushReasoning(reasoning: string, events: ModelStreamEvent[]): void {
    if (reasoning === '') return;
    this.#reasoning += reasoning;
    events.push({ type: 'reasoning', delta: reasoning });
  }

  // Strings are fragments and are joined; arrays are joined; other values replace.
  #collectNative(delta: ChatDelta): void {
    for (const [field, value] of Object.entries(delta)) {
      if (TYPED_DELTA_FIELDS.has(field) || value === null || value === undefined) continue;
      const earlier = this.#native[field];
      if (typeof value === 'string' && typeof earlier === 'string') {
        this.#native[field] = earlier + value;
      } else if (Array.isArray(value) && Array.isArray(earlier)) {
        this.#native[field] = [...(earlier as unknown[]), ...(value as unknown[])];
      } else {
        this.#native[field] = value;
      }
    }
  }

  #pushToolCall(fragment: ToolCallDelta): ModelStreamEvent | undefined {
    const slot = this.#slotFor(fragment);
    const event: ModelStreamEvent & { type: 'tool_call_delta' } = {
      type: 'tool_call_delta',
      index: slot.position,
      argumentsDelta: fragment.function?.arguments ?? '',
    };
    if (fragment.id && slot.id === '') {
      slot.id = fragment.id;
      event.id = fragment.id;
    }
    const name = fragment.function?.name;
    if (name && slot.name === '') {
      slot.name = name;
      event.name = name;
    }
    slot.arguments += event.argumentsDelta;
    for (const [field, value] of Object.entries(fragment)) {
      if (!TYPED_TOOL_CALL_FIELDS.has(field) && value !== null && value !== undefined) {
        slot.native[field] = value;
      }
    }
    const news = event.id !== undefined || event.name !== undefined || event.argumentsDelta !== '';
    return news ? event : undefined;
  }

  // OpenAI streams a call as a header fragment (index, id, name) and then argument fragments
  // with the index only. Ollama sends each call whole, with index 0 or none: a new id there
  // is a new call. A fragment with neither index nor id continues the latest call.
  #slotFor(fragment: ToolCallDelta): ToolCallSlot {
    const { id, index } = fragment;
    const byId = id ? this.#toolCalls.find((slot) => slot.id === id) : undefined;
    if (byId) return byId;
    const candidate =
      index === null || index === undefined ? this.#toolCalls.at(-1) : this.#slotByIndex.get(index);
    const belongsElsewhere = Boolean(id) && candidate !== undefined && candidate.id !== '';
    if (candidate && !belongsElsewhere) return candidate;
    const slot: ToolCallSlot = {
      position: this.#toolCalls.length,
      id: '',
      name: '',
      arguments: '',
      native: {},
    };
    this.#toolCalls.push(slot);
    if (index !== null && index !== undefined) this.#slotByIndex.set(index, slot);
    return slot;
  }

  /** The outcome once the stream has ended by itself (not aborted). */
  result(): AttemptResult {
    const finishReason = this.#finishReason;
    if (finishReason === undefined) {
      return fail(modelFailure('network', 'the stream ended before the model finished its turn'));
    }
    if (this.#refusal !== '') return fail(modelFailure('refusal', this.#refusal));
    const failure = finishReasonFailure(finishReason);
    if (failure) return fail(failure);
    const toolCalls = this.#toolCalls.map((slot) => ({
      // Some local servers send no call ids; the tool results still need one to refer to.
      id: slot.id === '' ? `call_${slot.position}` : slot.id,
      name: slot.name,
      arguments: slot.arguments,
    }));
    const callNatives = this.#toolCalls.flatMap((slot, position) =>
      Object.keys(slot.native).length > 0 ? [{ id: toolCalls[position]?.id, ...slot.native }] : [],
    );
    const native =
      callNatives.length > 0
        ? { ...this.#native, [TOOL_CALL_NATIVE_KEY]: callNatives }
        : this.#native;
    const message: ModelCompletion = { text: this.#text, toolCalls, finishReason, native };
    if (this.#reasoning !== '') message.reasoning = this.#reasoning;
    if (this.#usage) message.usage = this.#usage;
    return { type: 'completed', message };
  }
}

function fail(error: ModelFailure): AttemptResult {
  return { type: 'failed', error };
}
