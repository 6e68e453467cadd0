/**
 * What a host says of its model in `host.info`'s `modelNotice` (a host started with
 * `--demo`: "demo model: scripted, not an AI"), shown beside that host's runs and on the
 * form that sends it a task, so a scripted answer is never taken for an AI's.
 */
import type { HostView } from '../state/app-view.js';

export function ModelNotice({ host }: { host: HostView }) {
  const notice = host.info?.modelNotice;
  if (notice === undefined || notice === '') return null;
  return (
    <p class="notice small" data-testid="host-model-notice" data-host-id={host.hostId} role="note">
      {notice}
    </p>
  );
}
