/**
 * `tether history`: whether the running host's database went back in time (a copy from
 * `backups/` put over it, a WAL cut by damaged storage), and `--acknowledge` to stop the
 * host, its log and the devices saying so. What was lost stays lost.
 */
import { parseCommandArgs, tetherCommand } from '../../common/cli/index.js';
import { AdminClient, type HostHistory } from './admin-client.js';
import type { HostCommandContext } from './host-command.js';

/** The usage text of `history`, for `--help` and command-line errors. */
export const HISTORY_USAGE = `Usage: tether history [--acknowledge] [--data DIR]

Says whether the host's database went back in time: a copy from backups/ was put over it,
or damaged storage cut its log. The host then serves the older state; runs, answers and
approvals after that point are gone from it (devices may still show them). The host, its
log, tether doctor and the app say so until you acknowledge it.

Options:
  --acknowledge   you have seen it: stop saying so (the lost history stays lost)
  --data DIR      data directory of the running host (as for tether start)
`;

const FLAGS = { data: { type: 'string' }, acknowledge: { type: 'boolean' } } as const;

function describe(history: HostHistory['history']): string {
  const rewound = history.rewound;
  if (rewound === undefined) return 'The history is whole as far as this host knows.\n';
  const who =
    rewound.by === 'host' ? 'this host had recorded' : `device ${rewound.deviceId ?? '?'} had seen`;
  const times = rewound.count > 1 ? ` (${rewound.count} times, the latest:)` : '';
  return (
    `The database went back in time${times}: its history ends at event ${rewound.head}, ` +
    `before event ${rewound.knownHead} that ${who} (found ${new Date(rewound.detectedAt).toISOString()}).\n` +
    'It was restored from a backup or damaged; what happened after that point is gone from this host.\n'
  );
}

/** Runs `tether history`; resolves with the exit code. */
export async function historyCommand(
  argv: readonly string[],
  ctx: HostCommandContext,
): Promise<number> {
  const { values, help } = parseCommandArgs(argv, FLAGS);
  if (help) {
    ctx.out(HISTORY_USAGE);
    return 0;
  }
  const admin = AdminClient.connect(ctx.dataDir(values.data));
  if (values.acknowledge !== true) {
    const { history } = await admin.history(ctx.signal);
    ctx.out(describe(history));
    if (history.rewound !== undefined) {
      ctx.out(`Once you have seen it: ${tetherCommand()} history --acknowledge\n`);
    }
    return 0;
  }
  const answer = await admin.acknowledgeHistory(ctx.signal);
  const count = answer.acknowledged ?? 0;
  ctx.out(
    count === 0
      ? 'Nothing to acknowledge: the history is whole as far as this host knows.\n'
      : `Acknowledged (${count} time(s)): the host no longer says its history went back. What was lost stays lost.\n`,
  );
  return 0;
}
