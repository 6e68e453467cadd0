/**
 * Builds the model's context from the store: a session is one continuing conversation,
 * so earlier runs come first, then this one. Bounded: earlier runs are dropped oldest
 * first, then the oldest tool results of this run are elided. What can no longer change
 * (a finished run, a message whose tool calls all ended) is cached, so a long run does not
 * re-read its whole history every turn.
 */
import { isTerminalRunState, isTerminalToolCallState } from '../../protocol/index.js';
import type { ModelMessage } from '../model/index.js';
import type { Store, StoredRun } from '../store/index.js';

function systemPrompt(workspace: string): string {
  return [
    "You are an agent working on the user's computer through Tether.",
    `The workspace is ${workspace}. Paths are relative to it unless absolute.`,
    'Use the tools to look before you answer. Tool results may be shortened: they say so and give the full size.',
    'When the task is done, answer plainly with what you found or did.',
  ].join('\n');
}

/** What the context is for: the workspace, the provider it goes to, and its size bound. */
export interface ContextTarget {
  workspace: string;
  provider: string;
  maxChars: number;
}

interface Block {
  messages: ModelMessage[];
  chars: number;
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

function block(messages: ModelMessage[]): Block {
  return { messages, chars: messages.reduce((sum, message) => sum + size(message), 0) };
}

/** Immutable parts of contexts already built, per provider. One per executor. */
export class ContextCache {
  private readonly runs = new Map<string, Block>();
  private readonly messages = new Map<string, Block>();

  constructor(
    private readonly store: Store,
    private readonly provider: string,
  ) {}

  /** The assistant message and its tool results, as the model sees them. */
  message(id: string): Block {
    const cached = this.messages.get(id);
    if (cached !== undefined) return cached;
    const message = this.store.runs.getMessage(id);
    if (message === undefined) throw new Error(`no message ${id}`);
    const calls = this.store.tools.listToolCallsOfMessage(id);
    const out: ModelMessage[] = [
      {
        role: 'assistant',
        content: message.text,
        toolCalls: message.toolCalls,
        // Native fields go back only to the provider that produced them.
        ...(message.provider === this.provider ? { native: message.native } : {}),
      },
    ];
    for (const modelCall of message.toolCalls) {
      const call = calls.find((candidate) => candidate.modelCallId === modelCall.id);
      out.push({
        role: 'tool',
        toolCallId: modelCall.id,
        content:
          call?.modelContent ??
          `[no result: the tool call ended as ${call?.state ?? 'unrecorded'} before it produced one]`,
      });
    }
    const result = block(out);
    if (calls.every((call) => isTerminalToolCallState(call.state))) this.messages.set(id, result);
    return result;
  }

  /** The whole exchange of a run: its input, then each message with its results. */
  run(run: StoredRun): Block {
    const cached = this.runs.get(run.id);
    if (cached !== undefined) return cached;
    const messages: ModelMessage[] = [{ role: 'user', content: run.input.text }];
    for (const id of this.store.runs.listMessageIds(run.id))
      messages.push(...this.message(id).messages);
    const result = block(messages);
    if (isTerminalRunState(run.state)) {
      this.runs.set(run.id, result);
      for (const id of this.store.runs.listMessageIds(run.id)) this.messages.delete(id);
    }
    return result;
  }
}

/** The context for the next model request of `run`, at most `target.maxChars` characters. */
export function buildContext(
  store: Store,
  run: StoredRun,
  target: ContextTarget,
  cache = new ContextCache(store, target.provider),
): ModelMessage[] {
  const system: ModelMessage = { role: 'system', content: systemPrompt(target.workspace) };
  const currentBlock = cache.run(run);
  const current = [...currentBlock.messages];
  let budget = target.maxChars - size(system) - currentBlock.chars;

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
    const { messages, chars } = cache.run(previous);
    if (chars > budget) break;
    budget -= chars;
    kept.unshift(messages);
  }
  return [system, ...kept.flat(), ...current];
}
