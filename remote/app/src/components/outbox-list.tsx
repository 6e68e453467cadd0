/**
 * Commands stored on this device and not answered yet: "waiting to send" while offline or
 * not connected, "sending" once connected (they survive reloads; the client core sends
 * each once when connected).
 */
import type { PendingCommand } from '#client';
import { sendsNow } from '../logic/connection-view.js';
import type { HostView } from '../state/app-view.js';

export function OutboxList({ host, online }: { host: HostView; online: boolean }) {
  if (host.pending.length === 0) return null;
  const connected = sendsNow(host.status, online);
  return (
    <ul class="list outbox">
      {host.pending.map((command) => (
        <li
          key={command.commandId}
          class="row outbox-item"
          data-testid="outbox-item"
          data-state={connected ? 'sending' : 'waiting'}
          data-command-id={command.commandId}
        >
          <span class="badge badge-waiting">{connected ? 'sending' : 'waiting to send'}</span>
          <span class="row-title">{describe(command)}</span>
        </li>
      ))}
    </ul>
  );
}

function describe(command: PendingCommand): string {
  const args = command.args;
  switch (command.op) {
    case 'run.submit': {
      const input = args['input'];
      const text =
        typeof input === 'object' && input !== null && 'text' in input ? String(input.text) : '';
      return `New task: ${text}`;
    }
    case 'run.cancel':
      return 'Cancel a run';
    case 'run.continue':
      return 'Continue a run';
    case 'approval.respond':
      return args['decision'] === 'approve' ? 'Approve a tool call' : 'Deny a tool call';
    case 'toolcall.reconcile':
      return 'Reconcile a tool call';
    case 'device.revoke':
      return 'Revoke a device';
    case 'device.rename':
      return `Rename a device to ${String(args['name'])}`;
    case 'push.subscribe':
    case 'push.unsubscribe':
    case 'push.test':
      return 'Change notifications';
    case 'policy.rule_add':
      return 'Add a rule and approve a tool call';
    case 'policy.rule_remove':
      return 'Remove a rule';
    case 'run.integrate':
      return 'Review';
    case 'attachment.put': {
      // One chunk at a time is in the outbox: its place says how far the file is.
      const index = Number(args['index']) + 1;
      return `Send ${String(args['name'])}: part ${index} of ${String(args['total'])}`;
    }
    case 'voice.transcribe':
      return 'Transcribe a recording';
  }
}
