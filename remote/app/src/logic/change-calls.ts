/**
 * Which of a run's tool calls its Changes screen lists (host/runtime/run-changes.ts), for
 * the count on the run screen's Changes button.
 */
import type { ToolCall } from '#protocol';

/**
 * A call the changes view lists: a command that started, or a write that did or may have
 * happened (a failed one wrote nothing), by what its tool declares (`access`); by name for
 * a host before `access`.
 */
export function isChange(call: ToolCall): boolean {
  const access =
    call.access ??
    (call.name === 'run_command'
      ? 'command'
      : call.name === 'write_file' || call.name === 'edit_file'
        ? 'write'
        : undefined);
  if (access === 'command') return call.startedAt !== null;
  if (access !== 'write') return false;
  return call.state === 'succeeded' || call.state === 'running' || call.state === 'unknown';
}
