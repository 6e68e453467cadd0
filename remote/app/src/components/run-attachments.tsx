/**
 * The files a run was given: name, type and size, a thumbnail for an image (its bytes read
 * from the host), shown larger when tapped. A chunk of its own, loaded for runs that have
 * attachments.
 */
import { useState } from 'preact/hooks';
import type { Attachment, Run } from '#protocol';
import { useAttachmentImage, useRunAttachments } from '../hooks/use-run-attachments.js';
import { attachedCount, formatBytes } from '../logic/run-screen-view.js';
import type { HostView } from '../state/app-view.js';

export function RunAttachments({ host, run }: { host: HostView; run: Run }) {
  const attachments = useRunAttachments(host, run.id);
  const count = attachedCount(run);
  return (
    <section class="card run-attachments" data-testid="run-attachments">
      <h2 class="card-title">
        Attached ({count} {count === 1 ? 'file' : 'files'})
      </h2>
      {attachments === undefined ? (
        <p class="muted small">Asking the host…</p>
      ) : (
        <ul class="attachment-list">
          {attachments.map((attachment) => (
            <RunAttachment key={attachment.id} host={host} attachment={attachment} />
          ))}
        </ul>
      )}
    </section>
  );
}

function RunAttachment({ host, attachment }: { host: HostView; attachment: Attachment }) {
  const { url, error } = useAttachmentImage(host, attachment);
  const [open, setOpen] = useState(false);
  return (
    <li
      class="attachment-item"
      data-testid="run-attachment"
      data-name={attachment.name}
      data-media-type={attachment.mediaType}
      data-size={String(attachment.size)}
    >
      {url !== undefined && (
        <button
          type="button"
          class="attachment-thumb-button"
          data-testid="run-attachment-thumb"
          aria-label={`Show ${attachment.name} larger`}
          onClick={() => setOpen(true)}
        >
          <img
            class="attachment-thumb"
            src={url}
            alt={attachment.name}
            data-testid="run-attachment-image"
          />
        </button>
      )}
      <span class="attachment-facts">
        <span class="attachment-name">{attachment.name}</span>
        <span class="muted small">
          {attachment.mediaType}, {formatBytes(attachment.size)}
        </span>
        {error !== undefined && <span class="error small">{error}</span>}
      </span>
      {open && url !== undefined && (
        <div
          class="image-viewer"
          role="dialog"
          aria-label={attachment.name}
          data-testid="image-viewer"
          onClick={() => setOpen(false)}
        >
          <img class="image-large" src={url} alt={attachment.name} />
          <button type="button" class="button" data-testid="image-viewer-close">
            Close
          </button>
        </div>
      )}
    </li>
  );
}
