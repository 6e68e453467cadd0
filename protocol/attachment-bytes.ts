/**
 * The bytes of attachments (docs/attachments.md): the chunk size they travel in, how many
 * one run may be given, and the magic bytes an image's media type must match. Apart from
 * attachments.ts (the ops' schemas, on the app's first load) so that only the code that
 * sends and reads files carries them. Browser-safe.
 */

/**
 * Bytes of every chunk but the last, which carries the rest: 512 KiB is 699,051 base64url
 * characters, which leaves a frame (1 MiB) about 300 KiB for the rest of the request.
 */
export const ATTACHMENT_CHUNK_BYTES = 512 * 1024;

/** Attachments one run may be given. */
export const MAX_RUN_ATTACHMENTS = 16;

/** How many chunks an attachment of `size` bytes travels in (an empty one: one chunk). */
export function attachmentChunks(size: number): number {
  return Math.max(1, Math.ceil(size / ATTACHMENT_CHUNK_BYTES));
}

/** Image types a model may be sent as image parts; their bytes must say the same. */
const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

export function isImageMediaType(mediaType: string): mediaType is ImageMediaType {
  return (IMAGE_MEDIA_TYPES as readonly string[]).includes(mediaType);
}

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  return prefix.every((byte, i) => bytes[at + i] === byte);
}

/** The image type the first bytes of a file say (PNG, JPEG, GIF, WebP), or null. */
export function sniffImageType(bytes: Uint8Array): ImageMediaType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38]) && [0x37, 0x39].includes(bytes[4] ?? 0)) {
    return bytes[5] === 0x61 ? 'image/gif' : null;
  }
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8))
    return 'image/webp';
  return null;
}

/**
 * Audio types `voice.transcribe` takes (docs/voice.md): what MediaRecorder makes (Opus in
 * WebM on Chromium and Firefox, AAC in MP4 on Safari) and the usual files. Their bytes must
 * say the same, as an image's must.
 */
const AUDIO_MEDIA_TYPES = [
  'audio/webm',
  'audio/mp4',
  'audio/ogg',
  'audio/mpeg',
  'audio/wav',
] as const;
type AudioMediaType = (typeof AUDIO_MEDIA_TYPES)[number];

export function isAudioMediaType(mediaType: string): mediaType is AudioMediaType {
  return (AUDIO_MEDIA_TYPES as readonly string[]).includes(mediaType);
}

/** The audio type the first bytes of a file say (WebM, MP4, Ogg, MP3, WAV), or null. */
export function sniffAudioType(bytes: Uint8Array): AudioMediaType | null {
  if (startsWith(bytes, [0x1a, 0x45, 0xdf, 0xa3])) return 'audio/webm';
  if (startsWith(bytes, [0x66, 0x74, 0x79, 0x70], 4)) return 'audio/mp4';
  if (startsWith(bytes, [0x4f, 0x67, 0x67, 0x53])) return 'audio/ogg';
  if (
    startsWith(bytes, [0x49, 0x44, 0x33]) ||
    (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0)
  )
    return 'audio/mpeg';
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x41, 0x56, 0x45], 8))
    return 'audio/wav';
  return null;
}
