/**
 * `tether remote changes <runId>`: what a run changed, from the host's `run.changes`: each
 * file with its writes and their diffs, each command with how it ended, and the run's
 * token usage. Everything the host sent is shown escaped.
 */
import {
  type CommandRun,
  type FileWrite,
  type OpResult,
  RunChanges,
} from '../../protocol/index.js';
import { parseCommandArgs } from '../../common/cli/index.js';
import { costText, usageText, visibleText } from '../client/index.js';
import { clip } from './format.js';
import { withHost } from './host-session.js';
import { HOST_FLAG, type RemoteContext, STATE_FLAG } from './remote-context.js';

/** The usage text of `changes`, for `--help` and command-line errors. */
export const CHANGES_USAGE = `Usage: tether remote changes <runId> [--json] [--host HOSTID] [--state FILE]

Shows what a run changed: each file its writes created or edited, with the diffs, and each
command it ran with its exit status; then its token usage.

Options:
  --json   print {"changes":…,"usage":…} as one line of JSON (diffs longer than 64 KiB
           are left out: read them with their artifactId)
`;

const FLAGS = { ...STATE_FLAG, ...HOST_FLAG, json: { type: 'boolean' } } as const;

/** Runs `tether remote changes`; resolves with the exit code. */
export async function changesCommand(argv: readonly string[], ctx: RemoteContext): Promise<number> {
  const { values, positionals, help } = parseCommandArgs(argv, FLAGS, { required: ['<runId>'] });
  if (help) {
    ctx.out(CHANGES_USAGE);
    return 0;
  }
  const runId = positionals[0]!;
  const { changes, usage } = await withHost(ctx, values, async (connection) => ({
    changes: RunChanges.parse(
      await connection.request('run.changes', { runId }, { signal: ctx.signal }),
    ),
    usage: await connection.request('run.usage', { runId }, { signal: ctx.signal }),
  }));
  if (values.json === true) {
    ctx.out(JSON.stringify({ changes, usage }) + '\n');
    return 0;
  }
  ctx.out(changesText(changes, usage));
  return 0;
}

function changesText(changes: RunChanges, usage: OpResult<'run.usage'>): string {
  const lines: string[] = [];
  if (changes.files.length === 0) lines.push('No files written.');
  for (const file of changes.files) {
    lines.push(`file ${clip(file.path, 200)}`);
    for (const write of file.writes) {
      lines.push(`  ${writeLine(write)}`);
      if (write.diff?.text !== undefined) {
        for (const line of write.diff.text.replace(/\n$/, '').split('\n')) {
          lines.push(`    ${visibleText(line)}`);
        }
      } else if (write.diff !== null && write.diff !== undefined) {
        lines.push(`    [diff of ${write.diff.bytes} bytes: artifact ${write.diff.artifactId}]`);
      }
    }
  }
  lines.push('');
  if (changes.commands.length === 0) lines.push('No commands run.');
  for (const command of changes.commands) lines.push(commandLine(command));
  if (changes.omitted !== undefined) {
    lines.push(
      `(${changes.omitted.writes} more writes and ${changes.omitted.commands} more commands than one answer holds: tether remote watch ${changes.runId} shows every call)`,
    );
  }
  const tokens = usageText(usage.run);
  lines.push('', `usage: ${tokens ?? 'not reported by the model provider'}`);
  const cost = costText(usage.run);
  if (cost !== undefined) lines.push(`cost: ${cost}`);
  return lines.join('\n') + '\n';
}

function writeLine(write: FileWrite): string {
  const lines =
    write.linesAdded === undefined ? '' : ` +${write.linesAdded} -${write.linesRemoved ?? 0}`;
  const digests =
    write.afterSha256 === undefined
      ? ''
      : ` sha256 ${write.beforeSha256?.slice(0, 12) ?? 'none'} → ${write.afterSha256.slice(0, 12)}`;
  const what = write.action === 'unknown' ? `${write.state}: may have written` : write.action;
  return `${write.tool} ${what}${lines}${digests} (${write.toolCallId})`;
}

function commandLine(command: CommandRun): string {
  let outcome: string;
  if (command.state === 'running') outcome = 'running';
  else if (command.state === 'unknown') {
    outcome = `unknown (the host lost track of it${command.reconciled === null ? '' : `; you said: ${command.reconciled.outcome}`})`;
  } else if (command.exitCode !== null) outcome = `exit ${command.exitCode}`;
  else if (command.signal !== null) outcome = `killed by ${command.signal}`;
  else outcome = command.errorCode ?? command.state;
  const where = command.cwd === null ? '' : ` in ${clip(command.cwd, 120)}`;
  const cut =
    command.commandCut === undefined ? '' : ` [cut: ${command.commandCut} more characters]`;
  return `$ ${clip(command.command, 200)}${cut}${where}: ${outcome} (${command.toolCallId})`;
}
