/**
 * `tether remote cancel <runId>`: asks the host to cancel a run.
 */
import { isTerminalRunState } from '../../protocol/index.js';
import { parseCommandArgs } from '../../common/cli/index.js';
import { withHost } from './host-session.js';
import { HOST_FLAG, type RemoteContext, STATE_FLAG } from './remote-context.js';
import { sendCommand } from './send-command.js';

/** The usage text of `cancel`, for `--help` and command-line errors. */
export const CANCEL_USAGE = `Usage: tether remote cancel <runId> [--host HOSTID] [--state FILE]

Cancels a queued or running run (a finished one keeps its final state).
`;

const FLAGS = { ...STATE_FLAG, ...HOST_FLAG } as const;

/** Runs `tether remote cancel`; resolves with the exit code. */
export async function cancelCommand(argv: readonly string[], ctx: RemoteContext): Promise<number> {
  const { values, positionals, help } = parseCommandArgs(argv, FLAGS, { required: ['<runId>'] });
  if (help) {
    ctx.out(CANCEL_USAGE);
    return 0;
  }
  const runId = positionals[0]!;
  const { state } = await withHost(ctx, values, (connection) =>
    sendCommand(connection, ctx, 'run.cancel', { runId }),
  );
  ctx.out(
    isTerminalRunState(state) && state !== 'cancelled'
      ? `run ${runId} had already finished: ${state}\n`
      : `run ${runId} ${state}\n`,
  );
  return 0;
}
