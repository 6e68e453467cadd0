/**
 * What one run changed, as the host answers `run.changes`: each file its writes touched,
 * with every write's diff and digests, and each command it ran with how it ended and its
 * output on demand. Everything the host sent is shown escaped (shown-text.tsx).
 */
import { type CommandRun, type FileWrite, type Run, RunChanges } from '#protocol';
import { inputText } from '#client';
import { DiffView } from '../components/diff-view.js';
import { ReadPager } from '../components/read-pager.js';
import { shownText } from '../components/shown-text.js';
import { useRun } from '../hooks/use-run.js';
import { useRunFacts } from '../hooks/use-run-facts.js';
import { routeHash } from '../logic/route.js';
import { hostOf, useAppView } from '../state/app-context.js';
import type { HostView } from '../state/app-view.js';

export function ChangesScreen({ hostId, runId }: { hostId: string; runId: string }) {
  const view = useAppView();
  const shown = useRun(hostOf(view, hostId), runId);
  const run = shown?.state.runs[runId];
  if (shown === undefined || run === undefined) {
    return (
      <main class="screen" data-testid="changes-screen" data-run-id={runId} data-loaded="false">
        <p class="empty">{shown === undefined ? 'This host is not paired.' : 'Loading the run…'}</p>
      </main>
    );
  }
  return <RunChangesView host={shown} run={run} />;
}

function RunChangesView({ host, run }: { host: HostView; run: Run }) {
  const facts = useRunFacts(host, run, 'run.changes');
  const parsed = facts.result === undefined ? undefined : RunChanges.safeParse(facts.result);
  const changes = parsed?.success === true ? parsed.data : undefined;
  const error =
    facts.error ??
    (parsed?.success === false ? 'the host answered with changes this app cannot read' : undefined);
  return (
    <main
      class="screen changes"
      data-testid="changes-screen"
      data-run-id={run.id}
      data-loaded={String(changes !== undefined)}
    >
      <header class="run-head">
        <a
          class="muted small"
          data-testid="changes-back"
          href={routeHash({ screen: 'run', hostId: host.hostId, runId: run.id })}
        >
          ← The run
        </a>
        <h1 class="screen-title">Changes</h1>
        <p class="run-task">{shownText(run.input.text)}</p>
      </header>
      {error !== undefined && <p class="error">The changes could not be read: {error}</p>}
      {changes === undefined ? (
        error === undefined && <p class="empty">Asking the host…</p>
      ) : (
        <>
          <section class="card">
            <h2 class="card-title">Files ({changes.files.length})</h2>
            {changes.files.length === 0 && <p class="muted">This run wrote no file.</p>}
            {changes.files.map((file) => (
              <article
                class="changed-file"
                key={file.path}
                data-testid="changed-file"
                data-path={file.path}
              >
                <h3 class="tool-subject">{shownText(file.path)}</h3>
                {file.writes.map((write) => (
                  <Write key={write.toolCallId} host={host} write={write} />
                ))}
              </article>
            ))}
          </section>
          {changes.omitted !== undefined && (
            <p class="notice" data-testid="changes-omitted">
              This run made more changes than one answer holds: {changes.omitted.writes} writes and{' '}
              {changes.omitted.commands} commands are not listed here; the run's tool cards show
              every call.
            </p>
          )}
          <section class="card">
            <h2 class="card-title">Commands ({changes.commands.length})</h2>
            {changes.commands.length === 0 && <p class="muted">This run ran no command.</p>}
            {changes.commands.map((command) => (
              <Command key={command.toolCallId} host={host} command={command} />
            ))}
          </section>
        </>
      )}
    </main>
  );
}

const ACTIONS: Record<FileWrite['action'], string> = {
  created: 'created',
  edited: 'edited',
  overwritten: 'overwritten',
  unknown: 'may have written (the outcome is not known)',
};

function Write({ host, write }: { host: HostView; write: FileWrite }) {
  const lines =
    write.linesAdded === undefined ? '' : ` · +${write.linesAdded} −${write.linesRemoved ?? 0}`;
  return (
    <div
      class="file-write"
      data-testid="file-write"
      data-tool-call-id={write.toolCallId}
      data-action={write.action}
    >
      <p class="small">
        <code>{write.tool}</code> {ACTIONS[write.action]}
        {lines}
      </p>
      {write.afterSha256 !== undefined && (
        <p class="muted small approval-digest" data-testid="file-digests">
          {`sha256 ${
            write.beforeSha256 === null || write.beforeSha256 === undefined
              ? '(new file)'
              : short(write.beforeSha256)
          } → ${short(write.afterSha256)}`}
        </p>
      )}
      {write.diff === null ? (
        write.action !== 'unknown' && <p class="muted small">No byte changed.</p>
      ) : write.diff.text !== undefined ? (
        <DiffView diff={write.diff.text} testId="change-diff" />
      ) : (
        <ReadPager
          host={host}
          target={{ artifactId: write.diff.artifactId }}
          loadLabel="Show the diff"
          ids={{
            load: 'change-diff-load',
            full: 'change-diff-full',
            download: 'change-diff-download',
            more: 'change-diff-more',
          }}
          render={(text) => <DiffView diff={text} />}
        />
      )}
    </div>
  );
}

function Command({ host, command }: { host: HostView; command: CommandRun }) {
  // The host cuts a long command; the tool call this device holds has it whole.
  const call = host.state.toolCalls[command.toolCallId];
  const whole = call === undefined ? undefined : inputText(call.input, 'command');
  return (
    <article
      class="changed-command"
      data-testid="changed-command"
      data-tool-call-id={command.toolCallId}
      data-state={command.state}
      data-exit-code={command.exitCode === null ? '' : String(command.exitCode)}
    >
      <pre class="command">{shownText(whole ?? command.command)}</pre>
      {whole === undefined && command.commandCut !== undefined && (
        <p class="muted small">
          … {command.commandCut} more characters cut here; the run's tool card shows the whole
          command.
        </p>
      )}
      {command.cwd !== null && <p class="muted small">in {shownText(command.cwd)}</p>}
      <p class="small" data-testid="command-outcome">
        {outcomeText(command)}
      </p>
      {command.protectedChanges !== undefined && command.protectedChanges.length > 0 && (
        <div class="notice small" data-testid="command-protected-changes">
          <p>
            It changed protected paths, which its sandbox could not refuse; review them on the Mac:
          </p>
          <ul>
            {command.protectedChanges.map((changed) => (
              <li key={changed}>{shownText(changed)}</li>
            ))}
          </ul>
        </div>
      )}
      {command.output !== null && (
        <ReadPager
          host={host}
          target={{ toolCallId: command.toolCallId }}
          loadLabel="Show the output"
          ids={{
            load: 'command-output-load',
            full: 'command-output-full',
            download: 'command-output-download',
            more: 'command-output-more',
          }}
          render={(text) => <pre class="output-full">{shownText(text)}</pre>}
        />
      )}
    </article>
  );
}

/** How a command ended, in words that do not claim more than the host knows. */
function outcomeText(command: CommandRun): string {
  switch (command.state) {
    case 'running':
      return 'Running.';
    case 'unknown':
      return command.reconciled === null
        ? 'Outcome unknown: the host stopped while it ran.'
        : `Outcome unknown: the host stopped while it ran; you said: ${command.reconciled.outcome.replace(/_/g, ' ')}.`;
    default:
      break;
  }
  if (command.exitCode !== null) return `Exit status ${command.exitCode}.`;
  if (command.signal !== null) return `Killed by ${command.signal}.`;
  if (command.errorCode === 'timeout') return 'Timed out and stopped.';
  if (command.errorCode === 'cancelled' || command.state === 'cancelled') return 'Cancelled.';
  return `${command.state}${command.errorCode === null ? '' : ` (${command.errorCode})`}.`;
}

function short(sha256: string): string {
  return sha256.slice(0, 12);
}
