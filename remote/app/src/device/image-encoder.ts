/**
 * An image scaled and re-encoded on the device through a canvas (logic/image-scaling.ts
 * says to what size and type). Drawing the decoded pixels and encoding them anew keeps
 * nothing of the file but its picture: EXIF, GPS location and other metadata are gone.
 */
import { encodedName, encodedType, scaledSize } from '../logic/image-scaling.js';

/** An image as it would be sent. */
export interface EncodedImage {
  name: string;
  mediaType: 'image/jpeg' | 'image/png';
  bytes: Uint8Array;
  width: number;
  height: number;
  /** The picture's size before scaling. */
  sourceWidth: number;
  sourceHeight: number;
}

/** JPEG quality of a re-encoded photo. */
const JPEG_QUALITY = 0.85;

/**
 * `file` decoded (turned as its EXIF orientation says), scaled and re-encoded; undefined
 * when this browser cannot decode it (a HEIC photo outside Safari, a file that is no image).
 */
export async function encodeImage(file: File): Promise<EncodedImage | undefined> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return undefined;
  }
  try {
    const { width, height } = scaledSize(bitmap.width, bitmap.height);
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext('2d');
    if (context === null) return undefined;
    const mediaType = encodedType(file.type);
    if (mediaType === 'image/jpeg') {
      // JPEG has no transparency: what is transparent becomes white, not black.
      context.fillStyle = '#fff';
      context.fillRect(0, 0, width, height);
    }
    context.imageSmoothingQuality = 'high';
    context.drawImage(bitmap, 0, 0, width, height);
    const blob = await new Promise<Blob | null>((resolve) =>
      canvas.toBlob(resolve, mediaType, JPEG_QUALITY),
    );
    if (blob === null) return undefined;
    return {
      name: encodedName(file.name, mediaType),
      mediaType,
      bytes: new Uint8Array(await blob.arrayBuffer()),
      width,
      height,
      sourceWidth: bitmap.width,
      sourceHeight: bitmap.height,
    };
  } finally {
    bitmap.close();
  }
}
