/**
 * `tether remote runs`: the host's recent runs, newest first.
 */
import { formatTable, formatTime, parseCommandArgs } from '../../common/cli/index.js';
import { clip } from './format.js';
import { withHost } from './host-session.js';
import { HOST_FLAG, type RemoteContext, STATE_FLAG } from './remote-context.js';

/** The usage text of `runs`, for `--help` and command-line errors. */
export const RUNS_USAGE = `Usage: tether remote runs [--query TEXT] [--json] [--host HOSTID] [--state FILE]

Lists the host's recent runs, newest first.

Options:
  --query TEXT  only runs whose task, conversation title or answers hold TEXT (any case)
  --json        print {"runs":[…]} as one line of JSON
`;

const FLAGS = {
  ...STATE_FLAG,
  ...HOST_FLAG,
  json: { type: 'boolean' },
  query: { type: 'string' },
} as const;

/** Runs `tether remote runs`; resolves with the exit code. */
export async function runsCommand(argv: readonly string[], ctx: RemoteContext): Promise<number> {
  const { values, help } = parseCommandArgs(argv, FLAGS);
  if (help) {
    ctx.out(RUNS_USAGE);
    return 0;
  }
  const { runs } = await withHost(ctx, values, (connection) =>
    connection.request('runs.list', values.query === undefined ? {} : { query: values.query }, {
      signal: ctx.signal,
    }),
  );
  if (values.json === true) {
    ctx.out(JSON.stringify({ runs }) + '\n');
    return 0;
  }
  if (runs.length === 0 && values.query !== undefined) {
    ctx.out(`No runs match ${clip(JSON.stringify(values.query))}.\n`);
    return 0;
  }
  if (runs.length === 0) {
    ctx.out('No runs yet: start one with: tether remote submit "<task>"\n');
    return 0;
  }
  const rows = runs.map((run) => [
    run.id,
    run.state,
    formatTime(run.createdAt),
    clip(run.input.text, 60),
  ]);
  ctx.out(formatTable(['RUN ID', 'STATE', 'CREATED', 'TASK'], rows) + '\n');
  return 0;
}
