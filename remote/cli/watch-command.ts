/**
 * `tether remote watch [runId]`: follows one run until it ends, or every run until Ctrl-C.
 */
import { parseCommandArgs } from '../../common/cli/index.js';
import { withHost } from './host-session.js';
import { HOST_FLAG, type RemoteContext, STATE_FLAG } from './remote-context.js';
import { followRuns } from './run-follower.js';

/** The usage text of `watch`, for `--help` and command-line errors. */
export const WATCH_USAGE = `Usage: tether remote watch [runId] [--host HOSTID] [--state FILE]

Shows runs live: state changes, tool calls, pending approvals, the assistant's text as it
streams. With a runId, ends when that run ends; without, follows every run until Ctrl-C.
`;

const FLAGS = { ...STATE_FLAG, ...HOST_FLAG } as const;

/** Runs `tether remote watch`; resolves with the exit code. */
export async function watchCommand(argv: readonly string[], ctx: RemoteContext): Promise<number> {
  const { values, positionals, help } = parseCommandArgs(argv, FLAGS, { optional: 1 });
  if (help) {
    ctx.out(WATCH_USAGE);
    return 0;
  }
  const runId = positionals[0];
  await withHost(ctx, values, (connection, host) =>
    followRuns(connection, host, ctx, { runId, text: true }),
  );
  return 0;
}
