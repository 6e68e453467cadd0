/**
 * `tether remote …`: this computer as a remote of a Tether host, through the client core
 * (pairing, the encrypted channel, the durable outbox). Human output by default.
 */
import { homedir } from 'node:os';
import { pairRefusalOf, setEnglishIssueMessages, TetherError } from '../../protocol/index.js';
import { visibleText } from '../client/index.js';
import { approvalCommand, approvalUsage } from './approval-command.js';
import { CANCEL_USAGE, cancelCommand } from './cancel-command.js';
import { CHANGES_USAGE, changesCommand } from './changes-command.js';
import { tetherCommand, UsageError } from '../../common/cli/index.js';
import { ConnectionFailures } from './connection-failures.js';
import { HOSTS_USAGE, hostsCommand } from './hosts-command.js';
import { PAIR_USAGE, pairCommand } from './pair-command.js';
import type { RemoteContext } from './remote-context.js';
import { REVIEW_USAGE, reviewCommand } from './review-command.js';
import { RUNS_USAGE, runsCommand } from './runs-command.js';
import { SUBMIT_USAGE, submitCommand } from './submit-command.js';
import { WATCH_USAGE, watchCommand } from './watch-command.js';

/** The usage of `tether remote`. */
export const REMOTE_USAGE = `Usage: tether remote <command> [options]

Commands:
  pair <link> [--name NAME]     pair with a host (run \`tether pair\` on it for a link)
  hosts                         list the paired hosts
  runs [--query TEXT] [--json]  list the host's recent runs, or those matching TEXT
  changes <runId> [--json]      what a run changed: files with diffs, commands, usage
  submit "<task>" [--workspace DIR] [--model M] [--wait] [--worktree [--base REF]]
                                start a run; --wait follows it to its end;
                                --worktree works on a branch of its own
  review <runId> [--merge|--keep|--discard] [--yes]
                                show a --worktree run's branch with its diff, then
                                merge it, keep it or discard it once you answer y
  watch [runId]                 show runs live (one run until it ends, or all until Ctrl-C)
  approve <approvalId> [--yes]  show an approval and approve it once you answer y
  deny <approvalId> [--note T]  show an approval and deny it
  cancel <runId>                cancel a run

Options:
  --state FILE    this remote's keys, hosts and outbox, for every command (default:
                  TETHER_REMOTE_STATE, else $XDG_CONFIG_HOME/tether/remote.json, else
                  ~/.config/tether/remote.json)
  --host HOSTID   the host to use when paired with several (tether remote hosts lists them)
  --help          the command's own usage
`;

type Command = (argv: readonly string[], ctx: RemoteContext) => Promise<number>;

const COMMANDS: Readonly<Record<string, { run: Command; usage: string }>> = {
  pair: { run: pairCommand, usage: PAIR_USAGE },
  hosts: { run: hostsCommand, usage: HOSTS_USAGE },
  runs: { run: runsCommand, usage: RUNS_USAGE },
  changes: { run: changesCommand, usage: CHANGES_USAGE },
  submit: { run: submitCommand, usage: SUBMIT_USAGE },
  review: { run: reviewCommand, usage: REVIEW_USAGE },
  watch: { run: watchCommand, usage: WATCH_USAGE },
  approve: { run: approvalCommand('approve'), usage: approvalUsage('approve') },
  deny: { run: approvalCommand('deny'), usage: approvalUsage('deny') },
  cancel: { run: cancelCommand, usage: CANCEL_USAGE },
};

/**
 * Runs `tether remote <args>` with the given context; resolves with the exit code: 0,
 * 1 for a failure (printed as its message and code) or no command, 2 for a wrong command
 * line, 130 when Ctrl-C stopped it.
 */
export async function runRemoteCli(args: readonly string[], ctx: RemoteContext): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    ctx.out(REMOTE_USAGE);
    return name === undefined ? 1 : 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) {
    ctx.err(`tether remote: unknown command ${name}\n\n${REMOTE_USAGE}`);
    return 2;
  }
  try {
    return await command.run(rest, ctx);
  } catch (error) {
    if (error instanceof UsageError) {
      ctx.err(`tether remote ${name}: ${error.message}\n\n${command.usage}`);
      return 2;
    }
    if (ctx.signal.aborted) {
      ctx.err('\ntether remote: stopped\n');
      return 130;
    }
    const failure = TetherError.from(error);
    const cause = failure.code === 'internal' && error instanceof Error ? `: ${error.message}` : '';
    const next = failure.code === 'pair_failed' ? pairCure(failure.message) : '';
    const network = failure.code === 'unavailable' ? ctx.connectionFailure?.() : undefined;
    const message = visibleText(network ?? `${failure.message}${cause}${next}`);
    ctx.err(`tether remote ${name}: ${message} [${failure.code}]\n`);
    return 1;
  }
}

/**
 * What to do after a `pair_failed`: the host says when the link itself is the reason
 * (used, expired, void, unknown); other failures do not say which check failed.
 */
function pairCure(message: string): string {
  const fresh = `for a new link, run on the host: ${tetherCommand()} pair`;
  switch (pairRefusalOf(message)) {
    case 'used':
      return `; a link pairs one device only: ${fresh}`;
    case 'expired':
    case 'void':
    case 'unknown':
      return `; ${fresh}`;
    case undefined:
      return `: the link expired, was used already or is void, or the device and host disagree; ${fresh}`;
  }
}

/** `tether remote …` from bin/tether.js: `args` are the arguments after `remote`. */
export async function main(args: string[]): Promise<number> {
  setEnglishIssueMessages();
  const interrupt = new AbortController();
  const onInterrupt = () => interrupt.abort(new TetherError('unavailable', 'interrupted'));
  process.once('SIGINT', onInterrupt);
  const failures = new ConnectionFailures();
  try {
    return await runRemoteCli(args, {
      out: (text) => process.stdout.write(text),
      err: (text) => process.stderr.write(text),
      signal: interrupt.signal,
      terminal: process.stdin.isTTY ? process.stdin : undefined,
      env: process.env,
      cwd: process.cwd(),
      homedir: homedir(),
      socketFactory: failures.socketFactory,
      connectionFailure: () => failures.describe(),
    });
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}
