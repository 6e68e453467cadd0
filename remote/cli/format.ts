/**
 * Plain-text formatting shared by the remote's commands: tables, times, the SAS, inputs.
 */
import { cutText, visibleText } from '../client/index.js';

/** Columns padded to their widest cell, two spaces apart; the header row first. */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  return [header, ...rows]
    .map((row) =>
      row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  '),
    )
    .join('\n');
}

/** `2025-05-01 14:03` in local time. */
export function formatTime(ms: number): string {
  const at = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}`;
}

/** `846761` → `846 761`, as the host shows it. */
export function formatSas(sas: string): string {
  return sas.length === 6 ? `${sas.slice(0, 3)} ${sas.slice(3)}` : sas;
}

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
