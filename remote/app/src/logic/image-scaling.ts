/**
 * How an image is sent from the device (docs/attachments.md): its long side at most
 * 2,048 px, what vision models take, and re-encoded, which drops its metadata (EXIF, GPS
 * location): JPEG for photos, PNG for what may have transparency.
 */

/** The long side of an image as sent, at most. */
const MAX_IMAGE_SIDE = 2048;

/** `width`×`height` scaled down so its long side is at most `maxSide` (never up). */
export function scaledSize(
  width: number,
  height: number,
  maxSide = MAX_IMAGE_SIDE,
): { width: number; height: number } {
  const long = Math.max(width, height);
  if (long <= maxSide) return { width, height };
  const ratio = maxSide / long;
  return {
    width: Math.max(1, Math.round(width * ratio)),
    height: Math.max(1, Math.round(height * ratio)),
  };
}

/**
 * The type an image of `sourceType` is re-encoded to: JPEG for photos (JPEG, and HEIC/HEIF
 * from an iPhone's camera), PNG for the rest (PNG, GIF, WebP, … may be transparent).
 */
export function encodedType(sourceType: string): 'image/jpeg' | 'image/png' {
  return /^image\/(jpeg|jpg|pjpeg|heic|heif)$/.test(sourceType) ? 'image/jpeg' : 'image/png';
}

/** `name` with the extension of `mediaType`: `IMG_1234.HEIC` → `IMG_1234.jpg`. */
export function encodedName(name: string, mediaType: 'image/jpeg' | 'image/png'): string {
  const base = name.replace(/\.[^.]*$/, '') || 'image';
  return `${base}.${mediaType === 'image/jpeg' ? 'jpg' : 'png'}`;
}
