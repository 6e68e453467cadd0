/**
 * `tether remote pair <link>`: pairs this computer with the host of a pairing link and
 * shows the SAS to compare with the one the host shows.
 */
import { hostname } from 'node:os';
import { formatSas, parseCommandArgs } from '../../common/cli/index.js';
import { openClient, type RemoteContext, STATE_FLAG, statePath } from './remote-context.js';

/** The usage text of `pair`, for `--help` and command-line errors. */
export const PAIR_USAGE = `Usage: tether remote pair <link> [--name NAME] [--state FILE]

Pairs with the host of <link> (from \`tether pair\` or the host's admin page).

Options:
  --name NAME    how the host lists this device (default: CLI on <this computer>)
  --state FILE   where this remote keeps its keys and hosts
`;

const FLAGS = { ...STATE_FLAG, name: { type: 'string' } } as const;

/** Runs `tether remote pair`; resolves with the exit code. */
export async function pairCommand(argv: readonly string[], ctx: RemoteContext): Promise<number> {
  const { values, positionals, help } = parseCommandArgs(argv, FLAGS, { required: ['<link>'] });
  if (help) {
    ctx.out(PAIR_USAGE);
    return 0;
  }
  const name = values.name ?? `CLI on ${hostname().replace(/\.local$/i, '')}`.slice(0, 64);
  const client = openClient(ctx, values.state);
  const paired = await client.pair(
    positionals[0]!,
    { name, platform: `cli-${process.platform}`.slice(0, 32) },
    { signal: ctx.signal },
  );
  ctx.out(`Paired with ${paired.hostName} (host ${paired.hostId}) as ${name}.\n`);
  ctx.out(`Check that the host shows the same code: ${formatSas(paired.sas)}\n`);
  ctx.out(`Kept in ${statePath(ctx, values.state)}\n`);
  return 0;
}
