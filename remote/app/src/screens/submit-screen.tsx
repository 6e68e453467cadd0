/**
 * A new task: its text, the workspace (from `host.info`), the model it will use (a choice
 * when the host offers several), and, where the host keeps worktrees, whether it works in
 * its own branch (docs/worktrees.md; on by default where the workspace's config says so),
 * and who works it: Tether's own loop, or one of the host's ACP agents (docs/agents.md).
 * The host is a live one unless the user picks another. Photos and files go with it
 * (chosen, or pasted into the text): images scaled on the device, all weighed against the
 * host's limits before anything is sent, each file's chunks sent before the task.
 * Stored in the outbox first, so it works offline: it waits to send and goes out once
 * when the host is back.
 */
import { useState } from 'preact/hooks';
import type { CommandArgs } from '#client';
import { AttachButton } from '../components/attach-button.js';
import { AttachmentStrip } from '../components/attachment-strip.js';
import { ModelNotice } from '../components/model-notice.js';
import { UploadProgressLine } from '../components/upload-progress.js';
import { attachPasted, useAttachments } from '../hooks/use-attachments.js';
import { useSubmit } from '../hooks/use-submit.js';
import { agentChoices } from '../logic/agent-choices.js';
import { liveHostFirst } from '../logic/default-host.js';
import { useAppView, useModel } from '../state/app-context.js';
import type { HostView } from '../state/app-view.js';
import { navigate } from '../state/route-hook.js';
import { withTranscript } from '../logic/voice-note.js';
import { VoiceButton } from './voice-part.js';
import { submitWithAttachments, takeDraft, type UploadProgress } from '../state/upload-jobs.js';

export function SubmitScreen() {
  const view = useAppView();
  // A refused task's text taken back ("Edit as a new task"), on its host.
  const [draft] = useState(takeDraft);
  const [hostId, setHostId] = useState<string | undefined>(draft?.hostId);
  const host = view.hosts.find((h) => h.hostId === hostId) ?? liveHostFirst(view.hosts);
  return (
    <main class="screen" data-testid="submit-screen">
      <h1 class="screen-title">New task</h1>
      {view.hosts.length > 1 && (
        <label class="field">
          Host
          <select
            data-testid="submit-host"
            value={host?.hostId}
            onChange={(event) => setHostId(event.currentTarget.value)}
          >
            {view.hosts.map((h) => (
              <option key={h.hostId} value={h.hostId}>
                {h.live ? h.label : `${h.label} (not connected)`}
              </option>
            ))}
          </select>
        </label>
      )}
      {host !== undefined && (
        <SubmitForm
          key={host.hostId}
          host={host}
          draft={draft?.hostId === host.hostId ? draft.text : ''}
        />
      )}
    </main>
  );
}

function SubmitForm({ host, draft }: { host: HostView; draft: string }) {
  const app = useModel();
  const [text, setText] = useState(draft);
  const [workspace, setWorkspace] = useState<string | undefined>(undefined);
  const [model, setModel] = useState<string | undefined>(undefined);
  // '' is Tether's own loop.
  const [agent, setAgent] = useState('');
  const agents = agentChoices(host.info?.['agents']);
  const action = useSubmit(host);
  const workspaces = host.info?.workspaces ?? [];
  const models = host.info?.models ?? [];
  const chosenWorkspace = workspace ?? workspaces[0]?.path;
  const chosenModel = model ?? host.info?.model ?? models[0];
  const [ownBranch, setOwnBranch] = useState<boolean | undefined>(undefined);
  const worktrees = host.info?.capabilities.includes('worktrees') === true;
  const branchByDefault =
    workspaces.find((w) => w.path === chosenWorkspace)?.['isolation'] === 'worktree';
  const isolated = worktrees && (ownBranch ?? branchByDefault);

  const attachments = useAttachments(host);
  const [progress, setProgress] = useState<UploadProgress | undefined>(undefined);
  const blocked = attachments.refusal !== undefined || attachments.preparing;

  const submit = () => {
    const task = text.trim();
    if (task === '' || blocked) return;
    const args: CommandArgs<'run.submit'> = {
      input: { text: task },
      ...(chosenWorkspace === undefined ? {} : { workspace: chosenWorkspace }),
      ...(agent !== ''
        ? { agent }
        : models.length > 1 && chosenModel !== undefined
          ? { model: chosenModel }
          : {}),
      // Said only when it differs from what the host does unasked.
      ...(worktrees && isolated !== branchByDefault
        ? { isolation: isolated ? 'worktree' : 'none' }
        : {}),
    };
    if (attachments.chosen.length > 0) {
      action.run('submit', async () => {
        const offline = host.status.state !== 'open';
        const answered = submitWithAttachments(
          host.connection,
          args,
          await attachments.files(),
          setProgress,
          // Nobody waits here for a task sent offline: a refusal is kept and shown.
          offline ? app : undefined,
        );
        if (offline) {
          // Kept on this device: the files and the task go once the host is back.
          answered.catch(() => undefined);
          setText('');
          attachments.clear();
          navigate({ screen: 'runs' });
          return;
        }
        const result = await answered.finally(() => setProgress(undefined));
        navigate({ screen: 'run', hostId: host.hostId, runId: result.runId });
      });
      return;
    }
    const answered = action.submit('run.submit', args);
    if (host.status.state !== 'open') {
      // Offline: it is stored and shows as waiting on the runs screen until it is sent.
      answered.catch(() => undefined);
      setText('');
      navigate({ screen: 'runs' });
      return;
    }
    action.run('submit', async () => {
      const result = await answered;
      navigate({ screen: 'run', hostId: host.hostId, runId: result.runId });
    });
  };

  return (
    <form
      class="stack"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <ModelNotice host={host} />
      <div class="label-row">
        <label for="submit-text">Task</label>
        <VoiceButton host={host} onText={(said) => setText((now) => withTranscript(now, said))} />
      </div>
      <textarea
        id="submit-text"
        data-testid="submit-text"
        rows={5}
        placeholder="What should the agent do?"
        value={text}
        onInput={(event) => setText(event.currentTarget.value)}
        onPaste={(event) => attachPasted(event, attachments)}
      />
      <AttachmentStrip attachments={attachments} />
      <div class="composer-tools">
        <AttachButton
          testId="submit-attach"
          disabled={action.busy !== undefined}
          onFiles={attachments.add}
        />
      </div>
      <label class="field">
        Workspace
        <select
          data-testid="submit-workspace"
          value={chosenWorkspace}
          onChange={(event) => setWorkspace(event.currentTarget.value)}
        >
          {workspaces.length === 0 && <option value="">The host’s default workspace</option>}
          {workspaces.map((w) => (
            <option key={w.path} value={w.path}>
              {w.name} ({w.path})
            </option>
          ))}
        </select>
      </label>
      {agents.length > 0 && (
        <label class="field">
          Agent
          <select
            data-testid="submit-agent"
            value={agent}
            onChange={(event) => setAgent(event.currentTarget.value)}
          >
            <option value="">Tether</option>
            {agents.map((a) => (
              <option key={a.name} value={a.name}>
                {a.label}
              </option>
            ))}
          </select>
        </label>
      )}
      {agent === '' && models.length > 1 && (
        <label class="field">
          Model
          <select
            data-testid="submit-model"
            value={chosenModel}
            onChange={(event) => setModel(event.currentTarget.value)}
          >
            {models.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
      )}
      {agent === '' && models.length <= 1 && <ModelUsed host={host} model={chosenModel} />}
      {worktrees && (
        <label class="switch-row">
          <input
            type="checkbox"
            role="switch"
            data-testid="submit-own-branch"
            checked={isolated}
            onChange={(event) => setOwnBranch(event.currentTarget.checked)}
          />
          <span>
            Work in its own branch
            <span class="muted small block">
              Your checkout stays as it is; you review the branch and merge it when the run ends.
            </span>
          </span>
        </label>
      )}
      <button
        type="submit"
        class="button primary wide"
        data-testid="submit-button"
        disabled={action.busy !== undefined || text.trim() === '' || blocked}
      >
        {action.busy !== undefined ? 'Sending…' : 'Start'}
      </button>
      <UploadProgressLine progress={progress} />
      {host.status.state !== 'open' && (
        <p class="muted small">
          Not connected: the task will wait on this device and send itself once.
        </p>
      )}
      {action.error !== undefined && (
        <p class="error" data-testid="submit-error">
          {action.error}
        </p>
      )}
    </form>
  );
}

/** Which model the run will use, when there is no choice to make; what to do without one. */
function ModelUsed({ host, model }: { host: HostView; model: string | undefined }) {
  if (host.info === undefined) return null;
  return (
    <p class="muted small" data-testid="submit-model-used" data-model={model ?? ''}>
      {model === undefined
        ? `${host.label} has no model set up: run tether model set on that computer (tether doctor checks it).`
        : `Model: ${model}`}
    </p>
  );
}
