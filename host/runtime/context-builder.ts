/**
 * Builds the model's context from the store: a session is one continuing conversation,
 * so earlier runs come first, then this one. Bounded: earlier runs are dropped oldest
 * first, then the oldest tool results of this run are elided.
 */
import type { ModelMessage } from '../model/index.js';
import type { Store, StoredRun } from '../store/index.js';

export function systemPrompt(workspace: string): string {
  return [
    "You are an agent working on the user's computer through Tether.",
    `The workspace is ${workspace}. Paths are relative to it unless absolute.`,
    'Use the tools to look before you answer. Tool results may be shortened: they say so and give the full size.',
    'When the task is done, answer plainly with what you found or did.',
  ].join('\n');
}

function size(message: ModelMessage): number {
  switch (message.role) {
    case 'assistant':
      return (
        message.content.length +
        message.toolCalls.reduce((sum, call) => sum + call.arguments.length + call.name.length, 0) +
        JSON.stringify(message.native ?? {}).length
      );
    case 'system':
    case 'user':
    case 'tool':
      return message.content.length;
  }
}

/** What the model was told of a tool call with no recorded result for it. */
function missingResult(state: string): string {
  return `[no result: the tool call ended as ${state} before it produced one]`;
}

/** What the context is for: the workspace, the provider it goes to, and its size bound. */
export interface ContextTarget {
  workspace: string;
  provider: string;
  maxChars: number;
}

function messagesOfRun(store: Store, run: StoredRun, provider: string): ModelMessage[] {
  const out: ModelMessage[] = [{ role: 'user', content: run.input.text }];
  const calls = store.tools.listToolCalls(run.id);
  for (const message of store.runs.listMessages(run.id)) {
    out.push({
      role: 'assistant',
      content: message.text,
      toolCalls: message.toolCalls,
      // Native fields go back only to the provider that produced them.
      ...(message.provider === provider ? { native: message.native } : {}),
    });
    for (const modelCall of message.toolCalls) {
      const call = calls.find(
        (candidate) => candidate.messageId === message.id && candidate.modelCallId === modelCall.id,
      );
      out.push({
        role: 'tool',
        toolCallId: modelCall.id,
        content: call?.modelContent ?? missingResult(call?.state ?? 'unrecorded'),
      });
    }
  }
  return out;
}

/** The context for the next model request of `run`, at most `maxChars` characters. */
export function buildContext(store: Store, run: StoredRun, target: ContextTarget): ModelMessage[] {
  const system: ModelMessage = { role: 'system', content: systemPrompt(target.workspace) };
  const current = messagesOfRun(store, run, target.provider);
  let budget = target.maxChars - size(system) - current.reduce((sum, m) => sum + size(m), 0);

  // Elide this run's oldest tool results while it alone is over the budget.
  for (let i = 0; i < current.length && budget < 0; i++) {
    const message = current[i]!;
    if (message.role !== 'tool' || message.content.length < 200) continue;
    const note = `[elided to fit the context: ${message.content.length} characters]`;
    budget += message.content.length - note.length;
    current[i] = { ...message, content: note };
  }

  const earlier = store.runs
    .listRuns({ sessionId: run.sessionId, limit: 200, order: 'newest' })
    .filter((candidate) => candidate.id !== run.id && candidate.createdAt <= run.createdAt);
  const kept: ModelMessage[][] = [];
  for (const previous of earlier) {
    const messages = messagesOfRun(store, previous, target.provider);
    const cost = messages.reduce((sum, m) => sum + size(m), 0);
    if (cost > budget) break;
    budget -= cost;
    kept.unshift(messages);
  }
  return [system, ...kept.flat(), ...current];
}
