/**
 * What a run's attachments become for the model (docs/attachments.md): images as image
 * parts after the task's text, small UTF-8 text files inline with their name, and every
 * other file copied read-only into the run's own folder outside the workspace
 * (`<data>/run-attachments/<runId>/`), named in the text, which `read_file` may read for
 * the runs of that session and no tool may write.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
} from 'node:fs';
import { extname, join } from 'node:path';
import { fromUtf8, isImageMediaType } from '../../protocol/index.js';
import type { ModelMessage } from '../model/index.js';
import type { Store, StoredAttachment, StoredRun } from '../store/index.js';

/** A text file up to this size goes inline; a larger one is read with `read_file`. */
const INLINE_TEXT_MAX_BYTES = 32 * 1024;

type Use =
  | { kind: 'image' }
  | { kind: 'inline'; text: string; mark: string }
  | { kind: 'file'; fileName: string };

/**
 * Bytes of a name a file system takes (255), less room for the `16-` that tells apart
 * two files of one name.
 */
const FILE_NAME_MAX_BYTES = 250;

/**
 * The name of an attachment's file in the run's folder: its own name, cut (keeping a
 * short extension) when it is too long for a file's name (the wire takes 255 characters,
 * which can be 1,020 bytes).
 */
function fileNameOf(name: string): string {
  if (Buffer.byteLength(name) <= FILE_NAME_MAX_BYTES) return name;
  const extension = Buffer.byteLength(extname(name)) <= 16 ? extname(name) : '';
  let stem = '';
  for (const char of name.slice(0, name.length - extension.length)) {
    if (Buffer.byteLength(`${stem}${char}…${extension}`) > FILE_NAME_MAX_BYTES) break;
    stem += char;
  }
  return `${stem}…${extension}`;
}

/**
 * What marks the lines around a file's text: the first 16 hex digits of its SHA-256,
 * which the text cannot hold (it would have to hold its own digest), so no line of it can
 * pass for the end of the quotation.
 */
function quotationMark(attachment: StoredAttachment): string {
  return (attachment.sha256 ?? '').slice(0, 16);
}

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** The text of a small UTF-8 file without NUL bytes, or null. */
function inlineText(store: Store, attachment: StoredAttachment): string | null {
  if (attachment.size > INLINE_TEXT_MAX_BYTES) return null;
  const bytes = readFileSync(store.attachments.path(attachment.id));
  if (bytes.includes(0)) return null;
  try {
    return fromUtf8(bytes);
  } catch {
    return null;
  }
}

/**
 * How each attachment of a run reaches the model; file names are unique in the run, also
 * where a file system takes names differing only in case or Unicode form for one (macOS).
 */
function usesOf(store: Store, attachments: readonly StoredAttachment[]): Use[] {
  const taken = new Set<string>();
  const key = (fileName: string) => fileName.normalize('NFC').toLowerCase();
  return attachments.map((attachment, index): Use => {
    if (isImageMediaType(attachment.mediaType)) return { kind: 'image' };
    const text = inlineText(store, attachment);
    if (text !== null) return { kind: 'inline', text, mark: quotationMark(attachment) };
    const own = fileNameOf(attachment.name);
    const fileName = taken.has(key(own)) ? `${index + 1}-${own}` : own;
    taken.add(key(fileName));
    return { kind: 'file', fileName };
  });
}

/**
 * Copies the run's files that are neither images nor inline text into its folder, read
 * only (0400), once: a run resumed after a restart finds them there.
 */
export function placeRunAttachments(store: Store, run: StoredRun): void {
  const attachments = store.attachments.listOfRun(run.id);
  const uses = usesOf(store, attachments);
  const folder = store.attachments.runFolder(run.id);
  uses.forEach((use, index) => {
    if (use.kind !== 'file') return;
    const target = join(folder, use.fileName);
    if (existsSync(target)) return;
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    copyFileSync(store.attachments.path(attachments[index]!.id), target);
    chmodSync(target, 0o400);
  });
}

/** Real paths of the attachment folders of `sessionId`'s runs: readable, never writable. */
export function readableAttachmentFolders(store: Store, sessionId: string): string[] {
  return store.attachments
    .runsWithAttachments(sessionId)
    .map((runId) => store.attachments.runFolder(runId))
    .filter((folder) => existsSync(folder))
    .map((folder) => realpathSync(folder));
}

/** The run's task as the model reads it: the text, what was attached, and the images. */
export function runInputMessage(store: Store, run: StoredRun): ModelMessage {
  const attachments = store.attachments.listOfRun(run.id);
  if (attachments.length === 0) return { role: 'user', content: run.input.text };
  const uses = usesOf(store, attachments);
  const folder = store.attachments.runFolder(run.id);
  const lines = [run.input.text, '', 'Attached to this task by the user:'];
  const images: string[] = [];
  attachments.forEach((attachment, index) => {
    const use = uses[index]!;
    const what = `- ${attachment.name} (${attachment.mediaType}, ${sizeText(attachment.size)})`;
    switch (use.kind) {
      case 'image': {
        const data = readFileSync(store.attachments.path(attachment.id)).toString('base64');
        images.push(`data:${attachment.mediaType};base64,${data}`);
        lines.push(`${what}: image ${images.length} after this text.`);
        return;
      }
      case 'inline':
        lines.push(
          `${what}, its text between the lines marked ${use.mark}:`,
          `----- ${attachment.name} ${use.mark} -----`,
          use.text,
          `----- end of ${attachment.name} ${use.mark} -----`,
        );
        return;
      case 'file':
        lines.push(
          `${what}: not shown here; it is at ${join(folder, use.fileName)} (read-only, outside the workspace): read it with read_file.`,
        );
    }
  });
  return {
    role: 'user',
    content: lines.join('\n'),
    ...(images.length === 0 ? {} : { images }),
  };
}
