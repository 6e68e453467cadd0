/**
 * `tether remote hosts`: the hosts this remote is paired with (from its state file).
 */
import { formatTable, parseCommandArgs } from '../../common/cli/index.js';
import { openClient, type RemoteContext, STATE_FLAG } from './remote-context.js';

/** The usage text of `hosts`, for `--help` and command-line errors. */
export const HOSTS_USAGE = `Usage: tether remote hosts [--state FILE]

Lists the hosts this remote is paired with.
`;

/** Runs `tether remote hosts`; resolves with the exit code. */
export async function hostsCommand(argv: readonly string[], ctx: RemoteContext): Promise<number> {
  const { values, help } = parseCommandArgs(argv, STATE_FLAG);
  if (help) {
    ctx.out(HOSTS_USAGE);
    return 0;
  }
  const hosts = await openClient(ctx, values.state).pairedHosts();
  if (hosts.length === 0) {
    ctx.out('Not paired with any host: pair with: tether remote pair <link>\n');
    return 0;
  }
  const rows = hosts.map((host) => [host.hostId, host.hostName, host.origin, host.deviceId]);
  ctx.out(formatTable(['HOST ID', 'NAME', 'ORIGIN', 'THIS DEVICE'], rows) + '\n');
  return 0;
}
