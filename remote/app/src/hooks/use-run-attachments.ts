/**
 * What a run was given (`run.get`'s `attachments`), and an image's bytes from the host
 * (`attachment.read`, chunk by chunk) as an object URL for its thumbnail.
 */
import { useEffect, useState } from 'preact/hooks';
import { array, optional } from 'zod/mini';
import { Attachment, AttachmentChunk, fromB64u, isImageMediaType, parseWith } from '#protocol';
import type { HostView } from '../state/app-view.js';
import { errorText } from '../state/use-action.js';

/** The run's attachments once the host said them, in the order the model sees them. */
export function useRunAttachments(
  host: HostView,
  runId: string,
): readonly Attachment[] | undefined {
  const [attachments, setAttachments] = useState<readonly Attachment[] | undefined>(undefined);
  const connected = host.status.state === 'open';
  useEffect(() => {
    if (!connected || attachments !== undefined) return;
    let current = true;
    host.connection.request('run.get', { runId }).then(
      (result) => {
        const listed = parseWith(
          optional(array(Attachment)),
          (result as Record<string, unknown>)['attachments'],
          'run.get attachments',
        );
        if (current) setAttachments(listed ?? []);
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [host.connection, connected, runId, attachments]);
  return attachments;
}

/** An image attachment's bytes as an object URL, or why they could not be read. */
export function useAttachmentImage(
  host: HostView,
  attachment: Attachment,
): { url: string | undefined; error: string | undefined } {
  const [shown, setShown] = useState<{ url?: string; error?: string }>({});
  const image = isImageMediaType(attachment.mediaType);
  const connected = host.status.state === 'open';
  useEffect(() => {
    if (!image || !connected || shown.url !== undefined) return;
    let current = true;
    let url: string | undefined;
    readWhole(host, attachment.id).then(
      (parts) => {
        if (!current) return;
        url = URL.createObjectURL(new Blob(parts, { type: attachment.mediaType }));
        setShown({ url });
      },
      (failure: unknown) => current && setShown({ error: errorText(failure) }),
    );
    return () => {
      current = false;
    };
  }, [host.connection, connected, attachment.id, image]);
  useEffect(
    () => () => {
      if (shown.url !== undefined) URL.revokeObjectURL(shown.url);
    },
    [shown.url],
  );
  return { url: shown.url, error: shown.error };
}

/** Every chunk of an attachment, in order. */
async function readWhole(host: HostView, attachmentId: string): Promise<Uint8Array<ArrayBuffer>[]> {
  const parts: Uint8Array<ArrayBuffer>[] = [];
  for (let index = 0, total = 1; index < total; index++) {
    const answer = await host.connection.request('attachment.read', { attachmentId, index });
    const chunk = parseWith(AttachmentChunk, answer, 'attachment.read');
    total = chunk.total;
    parts.push(fromB64u(chunk.data) as Uint8Array<ArrayBuffer>);
  }
  return parts;
}
