/**
 * The files a composer carries, before they are sent: a thumbnail for an image, the name
 * and the size that would be sent (after scaling), "Keep original" for a scaled image,
 * Remove; and why they cannot go to this host, if they cannot.
 */
import {
  type ChosenAttachment,
  type ComposerAttachments,
  sentAs,
} from '../hooks/use-attachments.js';
import { formatBytes } from '../logic/run-screen-view.js';

export function AttachmentStrip({ attachments }: { attachments: ComposerAttachments }) {
  if (attachments.chosen.length === 0) return null;
  return (
    <div class="attachment-strip">
      <ul class="attachment-list">
        {attachments.chosen.map((item) => (
          <ChosenItem key={item.key} item={item} attachments={attachments} />
        ))}
      </ul>
      {attachments.refusal !== undefined && (
        <p class="error" role="alert" data-testid="attachment-refusal">
          {attachments.refusal}
        </p>
      )}
    </div>
  );
}

function ChosenItem({
  item,
  attachments,
}: {
  item: ChosenAttachment;
  attachments: ComposerAttachments;
}) {
  const { name, size } = sentAs(item);
  const encoded = item.encoded ?? undefined;
  const resized =
    encoded !== undefined &&
    (encoded.width !== encoded.sourceWidth || encoded.height !== encoded.sourceHeight);
  return (
    <li
      class="attachment-item"
      data-testid="attachment-item"
      data-name={name}
      data-size={String(size)}
      data-ready={String(item.encoded !== undefined)}
      data-keep-original={String(item.keepOriginal)}
    >
      {item.thumbnail !== undefined && (
        <img class="attachment-thumb" src={item.thumbnail} alt="" decoding="async" />
      )}
      <span class="attachment-facts">
        <span class="attachment-name">{name}</span>
        <span class="muted small">
          {item.encoded === undefined
            ? 'Scaling…'
            : `${formatBytes(size)}${
                encoded !== undefined && !item.keepOriginal
                  ? resized
                    ? `, scaled to ${encoded.width}×${encoded.height}, location and other metadata removed`
                    : ', location and other metadata removed'
                  : ''
              }`}
        </span>
        {encoded !== undefined && (
          <label class="switch-row small">
            <input
              type="checkbox"
              role="switch"
              data-testid="attachment-keep-original"
              checked={item.keepOriginal}
              onChange={(event) => attachments.keepOriginal(item.key, event.currentTarget.checked)}
            />
            <span>Keep original (sends its metadata, location included)</span>
          </label>
        )}
      </span>
      <button
        type="button"
        class="button small"
        data-testid="attachment-remove"
        aria-label={`Remove ${name}`}
        onClick={() => attachments.remove(item.key)}
      >
        Remove
      </button>
    </li>
  );
}
