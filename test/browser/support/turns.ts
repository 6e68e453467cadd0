/**
 * Model turns the browser tests script: text that streams slowly enough for a page to see
 * it grow, followed by tool calls.
 */
import {
  textTurn,
  toolCallTurn,
  type ScriptedToolCall,
  type StreamTurn,
} from '../../support/scripted-model-server.js';

/**
 * One assistant message that streams `words` (each after `delayMs`) and then proposes
 * `calls`: what a model says before it acts.
 */
export function sayThenCall(
  words: string[],
  calls: ScriptedToolCall[],
  delayMs: number,
): StreamTurn {
  const said = textTurn(words).items;
  const called = toolCallTurn(calls).items.slice(1); // without its second role delta
  return { kind: 'stream', items: [...said, ...called], finishReason: 'tool_calls', delayMs };
}

/** `count` words to stream, numbered so the page's text grows visibly with each. */
export function words(count: number, prefix = 'word'): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${i + 1} `);
}

/** A `run_command` call of `command` (which policy asks about by default). */
export function runCommand(id: string, command: string): ScriptedToolCall {
  return { id, name: 'run_command', arguments: JSON.stringify({ command }) };
}
