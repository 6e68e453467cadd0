/**
 * A run's follow-up composer, docked under the run: the next task in the run's session
 * (conversation), with its files (chosen or pasted, sent first as New task's are) and the
 * microphone. Send is enabled once the session is idle and the text is not empty.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Run } from '#protocol';
import { VoiceButton } from '../screens/voice-part.js';
import { attachPasted, useAttachments } from '../hooks/use-attachments.js';
import { useSubmit } from '../hooks/use-submit.js';
import { withTranscript } from '../logic/voice-note.js';
import type { HostView } from '../state/app-view.js';
import { navigate } from '../state/route-hook.js';
import {
  submitWithAttachments,
  watchFollowUpDraft,
  type UploadProgress,
} from '../state/upload-jobs.js';
import { AttachButton } from './attach-button.js';
import { AttachmentStrip } from './attachment-strip.js';
import { UploadProgressLine } from './upload-progress.js';

export function FollowUp({ host, run, idle }: { host: HostView; run: Run; idle: boolean }) {
  const [text, setText] = useState('');
  // A refused follow-up's text taken back ("Edit the follow-up"), now or while shown.
  useEffect(
    () => watchFollowUpDraft(host.hostId, run.sessionId, setText),
    [host.hostId, run.sessionId],
  );
  const action = useSubmit(host);
  const attachments = useAttachments(host);
  const [progress, setProgress] = useState<UploadProgress | undefined>(undefined);
  const blocked = attachments.refusal !== undefined || attachments.preparing;
  const send = () => {
    const task = text.trim();
    if (task === '' || blocked) return;
    const args = { sessionId: run.sessionId, input: { text: task } };
    action.run('followup', async () => {
      const result =
        attachments.chosen.length === 0
          ? await action.submit('run.submit', args)
          : await submitWithAttachments(
              host.connection,
              args,
              await attachments.files(),
              setProgress,
            ).finally(() => setProgress(undefined));
      setText('');
      attachments.clear();
      navigate({ screen: 'run', hostId: host.hostId, runId: result.runId });
    });
  };
  return (
    <form
      class="followup"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <label for="followup-text" class="sr-only">
        Follow-up in this conversation
      </label>
      <div class="composer">
        <textarea
          id="followup-text"
          data-testid="followup-text"
          rows={1}
          placeholder={idle ? 'Follow up here' : 'Follow up later'}
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
          onPaste={(event) => attachPasted(event, attachments)}
        />
        <div class="composer-tools">
          <AttachButton
            testId="followup-attach"
            iconOnly
            disabled={action.busy !== undefined}
            onFiles={attachments.add}
          />
          <VoiceButton host={host} onText={(said) => setText((now) => withTranscript(now, said))} />
        </div>
        <button
          type="submit"
          class="button primary"
          data-testid="followup-submit"
          disabled={!idle || action.busy !== undefined || text.trim() === '' || blocked}
          title={
            !idle
              ? 'Busy until the run is done'
              : text.trim() === ''
                ? 'Type a follow-up first'
                : 'Send (⌘/Ctrl+Enter)'
          }
        >
          Send
        </button>
      </div>
      <AttachmentStrip attachments={attachments} />
      <UploadProgressLine progress={progress} />
      {action.error !== undefined && <p class="error">{action.error}</p>}
    </form>
  );
}
