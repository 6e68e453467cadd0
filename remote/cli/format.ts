/**
 * How the remote's commands show text from the host on one line: clipped, escaped; tool
 * inputs. Tables, times and the SAS are in common/cli.
 */
import { cutText, visibleText } from '../client/index.js';

/**
 * One line: newlines folded to ` ⏎ `, hidden characters escaped, and past `max`
 * characters cut with `… [cut: N more characters]` (never silently).
 */
export function clip(text: string, max = 80): string {
  return visibleText(cutText(text.replace(/\s*\n\s*/g, ' ⏎ '), max));
}

/**
 * A tool's input on one line: its command or path (quoted) when it has one, else compact
 * JSON; clipped, so a long command says it was cut (the approval card shows it whole).
 */
export function formatToolInput(input: unknown): string {
  if (typeof input === 'object' && input !== null) {
    const { command, path } = input as { command?: unknown; path?: unknown };
    if (typeof command === 'string') return clip(JSON.stringify(command));
    if (typeof path === 'string') return clip(JSON.stringify(path));
  }
  return clip(JSON.stringify(input) ?? 'null');
}
