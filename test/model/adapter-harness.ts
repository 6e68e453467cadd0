/**
 * Small helpers for the model adapter tests: a request, and the events of one stream.
 */
import { expect } from 'vitest';
import type { ModelCompletion, ModelFailure, ModelRequest } from '../../host/model/index.js';
import type { ModelStreamEvent } from '../../host/model/testing.js';

/** A request with one user message and no tools, unless `overrides` says otherwise. */
export function userRequest(text: string, overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'test-model',
    messages: [{ role: 'user', content: text }],
    tools: [],
    ...overrides,
  };
}

/** Every event of `stream`, in order. */
export async function collect(
  stream: AsyncIterable<ModelStreamEvent>,
): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The completion that ends `events`; fails the test if they end otherwise. */
export function completionOf(events: ModelStreamEvent[]): ModelCompletion {
  const last = events.at(-1);
  if (last?.type !== 'completed')
    expect.fail(`expected a completed turn, got ${JSON.stringify(last)}`);
  return last.message;
}

/** The failure that ends `events`; fails the test if they end otherwise. */
export function failureOf(events: ModelStreamEvent[]): ModelFailure {
  const last = events.at(-1);
  if (last?.type !== 'failed') expect.fail(`expected a failed turn, got ${JSON.stringify(last)}`);
  return last.error;
}

/** The events' types, in order: the shape of a stream at a glance. */
export function typesOf(events: ModelStreamEvent[]): string[] {
  return events.map((event) => event.type);
}
