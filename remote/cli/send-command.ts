/**
 * Sending a command through the durable outbox with a bounded wait: a command the host
 * has not answered in time stays in the outbox and goes out again on the next connection.
 */
import { type CommandOpName, type OpResult, TetherError } from '../../protocol/index.js';
import type { CommandArgs, HostConnection } from '../client/index.js';
import type { RemoteContext } from './remote-context.js';

/** How long a command waits for the host's answer. */
const COMMAND_ANSWER_MS = 30_000;

/**
 * Submits `op` and resolves with the host's result; rejects with the host's error, or
 * `unavailable` when no answer came within {@link COMMAND_ANSWER_MS}.
 */
export async function sendCommand<O extends CommandOpName>(
  connection: HostConnection,
  ctx: RemoteContext,
  op: O,
  args: CommandArgs<O>,
): Promise<OpResult<O>> {
  const timeout = AbortSignal.timeout(COMMAND_ANSWER_MS);
  try {
    return await connection.submit(op, args, { signal: AbortSignal.any([ctx.signal, timeout]) });
  } catch (error) {
    if (!timeout.aborted || ctx.signal.aborted) throw error;
    throw new TetherError(
      'unavailable',
      `${connection.hostName} did not answer ${op} within ${COMMAND_ANSWER_MS / 1000} s: ` +
        'the command is kept and sent again the next time tether remote connects to this host',
    );
  }
}
