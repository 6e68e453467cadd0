/**
 * The files a composer (New task, the follow-up) carries: chosen or pasted, images scaled
 * and re-encoded on the device unless the user keeps the original, weighed against the
 * host's limits before anything is sent, and made ready to send (bytes, digest, id).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { sniffImageType } from '#protocol';
import { type OutgoingAttachment, outgoingAttachment } from '#client';
import { type EncodedImage, encodeImage } from '../device/image-encoder.js';
import { attachmentLimitsOf, attachmentRefusal } from '../logic/attachment-limits.js';
import type { HostView } from '../state/app-view.js';

/** One file in the composer. */
export interface ChosenAttachment {
  key: number;
  file: File;
  /** The image as it would be sent: undefined while it is made, null for other files. */
  encoded: EncodedImage | null | undefined;
  /** Send the file's own bytes (metadata and all) rather than the scaled image. */
  keepOriginal: boolean;
  /** An object URL of the file, for an image's thumbnail. */
  thumbnail: string | undefined;
}

/** What a chosen file would be sent as: its name and size. */
export function sentAs(chosen: ChosenAttachment): { name: string; size: number } {
  if (chosen.keepOriginal || chosen.encoded == null) {
    return { name: chosen.file.name || 'file', size: chosen.file.size };
  }
  return { name: chosen.encoded.name, size: chosen.encoded.bytes.length };
}

/** A media type as the host takes it (lower case `type/subtype`), else a plain file. */
const MEDIA_TYPE = /^[a-z0-9][a-z0-9.+-]*\/[a-z0-9][a-z0-9.+-]*$/;

/**
 * The file as it goes to the host from device `deviceId`: bytes, name, type (an image's
 * from its bytes), and its id (remote/client's `outgoingAttachment`).
 */
async function readyToSend(
  chosen: ChosenAttachment,
  deviceId: string,
): Promise<OutgoingAttachment> {
  const scaled = !chosen.keepOriginal && chosen.encoded != null ? chosen.encoded : undefined;
  const bytes = scaled?.bytes ?? new Uint8Array(await chosen.file.arrayBuffer());
  const said = chosen.file.type.toLowerCase();
  const mediaType =
    scaled?.mediaType ??
    sniffImageType(bytes) ??
    (MEDIA_TYPE.test(said) ? said : 'application/octet-stream');
  return outgoingAttachment(bytes, sentAs(chosen).name, mediaType, deviceId);
}

let nextKey = 0;

export function useAttachments(host: HostView) {
  const [chosen, setChosen] = useState<readonly ChosenAttachment[]>([]);
  const urls = useRef(new Set<string>());
  useEffect(() => {
    const held = urls.current;
    return () => {
      for (const url of held) URL.revokeObjectURL(url);
    };
  }, []);

  const update = (key: number, change: Partial<ChosenAttachment>) =>
    setChosen((list) => list.map((item) => (item.key === key ? { ...item, ...change } : item)));

  const add = (files: Iterable<File>) => {
    const added = [...files].map((file): ChosenAttachment => {
      const image = file.type.startsWith('image/');
      const thumbnail = image ? URL.createObjectURL(file) : undefined;
      if (thumbnail !== undefined) urls.current.add(thumbnail);
      return {
        key: nextKey++,
        file,
        encoded: image ? undefined : null,
        keepOriginal: false,
        thumbnail,
      };
    });
    setChosen((list) => [...list, ...added]);
    for (const item of added) {
      if (item.encoded === null) continue;
      encodeImage(item.file).then(
        (encoded) => update(item.key, { encoded: encoded ?? null }),
        () => update(item.key, { encoded: null }),
      );
    }
  };

  const remove = (key: number) =>
    setChosen((list) => {
      const gone = list.find((item) => item.key === key);
      if (gone?.thumbnail !== undefined) {
        URL.revokeObjectURL(gone.thumbnail);
        urls.current.delete(gone.thumbnail);
      }
      return list.filter((item) => item.key !== key);
    });

  const refusal = attachmentRefusal(
    chosen.map(sentAs),
    attachmentLimitsOf(host.info?.limits),
    host.label,
  );
  return {
    chosen,
    add,
    remove,
    keepOriginal: (key: number, keep: boolean) => update(key, { keepOriginal: keep }),
    /** Why these files cannot be sent to this host; undefined when they can. */
    refusal,
    /** Images still being scaled: not ready to send. */
    preparing: chosen.some((item) => item.encoded === undefined),
    /** Each file as it goes to the host. */
    files: () => Promise.all(chosen.map((item) => readyToSend(item, host.deviceId))),
    clear: () => {
      for (const item of chosen)
        if (item.thumbnail !== undefined) URL.revokeObjectURL(item.thumbnail);
      setChosen([]);
    },
  };
}

/** What {@link useAttachments} gives a composer. */
export type ComposerAttachments = ReturnType<typeof useAttachments>;

/**
 * A paste into a composer's text: the files it holds (an image copied, a screenshot) are
 * attached; a paste of files alone puts no text in the field.
 */
export function attachPasted(event: ClipboardEvent, attachments: ComposerAttachments): void {
  const files = [...(event.clipboardData?.files ?? [])];
  if (files.length === 0) return;
  attachments.add(files);
  if (!event.clipboardData?.types.includes('text/plain')) event.preventDefault();
}
