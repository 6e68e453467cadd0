/**
 * JPEG bytes with and without location metadata, for the tests of what leaves a device
 * (docs/attachments.md): an APP1 Exif segment holding a GPS IFD (latitude and longitude),
 * written by hand and put right after a JPEG's start marker; and readers of what a JPEG
 * holds (its segments, its size in pixels).
 */

/** The GPS position written into the Exif segment: 48°51'29.6" N, 2°17'40.2" E. */
export const GPS_LATITUDE = [48, 51, 296] as const;
export const GPS_LONGITUDE = [2, 17, 402] as const;

function u16(value: number): number[] {
  return [(value >> 8) & 0xff, value & 0xff];
}

function u32(value: number): number[] {
  return [(value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];
}

/** One 12-byte IFD entry, big-endian: tag, type, count, value (or its offset). */
function entry(tag: number, type: number, count: number, value: number[]): number[] {
  const padding = new Array<number>(4 - value.length).fill(0);
  return [...u16(tag), ...u16(type), ...u32(count), ...value, ...padding];
}

const ASCII = 2;
const LONG = 4;
const RATIONAL = 5;

/** Degrees, minutes and tenths of seconds as three EXIF rationals. */
function rationals([degrees, minutes, tenths]: readonly number[]): number[] {
  return [degrees!, 1, minutes!, 1, tenths!, 10].flatMap(u32);
}

/**
 * The APP1 segment: `Exif\0\0`, a big-endian TIFF header, IFD0 with one entry (the GPS
 * IFD's offset), the GPS IFD (latitude and longitude with their N/E references), then the
 * rationals. Offsets count from the TIFF header.
 */
export function exifGpsSegment(): Buffer {
  const ifd0 = 8;
  const gpsIfd = ifd0 + 2 + 12 + 4;
  const data = gpsIfd + 2 + 4 * 12 + 4;
  const tiff = [
    ...[0x4d, 0x4d, 0x00, 0x2a],
    ...u32(ifd0),
    ...u16(1),
    ...entry(0x8825, LONG, 1, u32(gpsIfd)),
    ...u32(0),
    ...u16(4),
    ...entry(0x0001, ASCII, 2, [0x4e, 0]),
    ...entry(0x0002, RATIONAL, 3, u32(data)),
    ...entry(0x0003, ASCII, 2, [0x45, 0]),
    ...entry(0x0004, RATIONAL, 3, u32(data + 24)),
    ...u32(0),
    ...rationals(GPS_LATITUDE),
    ...rationals(GPS_LONGITUDE),
  ];
  const body = [...Buffer.from('Exif\0\0', 'latin1'), ...tiff];
  return Buffer.from([0xff, 0xe1, ...u16(body.length + 2), ...body]);
}

/** `jpeg` with the Exif GPS segment right after its start-of-image marker. */
export function withExifGps(jpeg: Uint8Array): Buffer {
  if (jpeg[0] !== 0xff || jpeg[1] !== 0xd8) throw new Error('not a JPEG: no SOI marker');
  return Buffer.concat([jpeg.subarray(0, 2), exifGpsSegment(), jpeg.subarray(2)]);
}

/** The markers of a JPEG's segments before its image data, in order (e.g. 0xe0 for APP0). */
export function jpegSegments(jpeg: Uint8Array): { marker: number; body: Buffer }[] {
  const bytes = Buffer.from(jpeg);
  if (bytes.readUInt16BE(0) !== 0xffd8) throw new Error('not a JPEG: no SOI marker');
  const segments: { marker: number; body: Buffer }[] = [];
  for (let at = 2; at + 4 <= bytes.length;) {
    if (bytes[at] !== 0xff) throw new Error(`no marker at byte ${at}`);
    const marker = bytes[at + 1]!;
    const length = bytes.readUInt16BE(at + 2);
    segments.push({ marker, body: bytes.subarray(at + 4, at + 2 + length) });
    // Start of scan: entropy-coded data follows, no more segments to read.
    if (marker === 0xda) break;
    at += 2 + length;
  }
  return segments;
}

/** Whether the JPEG holds an Exif segment (APP1 starting `Exif\0\0`). */
export function hasExif(jpeg: Uint8Array): boolean {
  return jpegSegments(jpeg).some(
    (segment) =>
      segment.marker === 0xe1 && segment.body.subarray(0, 6).toString('latin1') === 'Exif\0\0',
  );
}

/** A JPEG's width and height from its start-of-frame segment. */
export function jpegSize(jpeg: Uint8Array): { width: number; height: number } {
  const frame = jpegSegments(jpeg).find((segment) => [0xc0, 0xc1, 0xc2].includes(segment.marker));
  if (frame === undefined) throw new Error('no start-of-frame segment');
  return { height: frame.body.readUInt16BE(1), width: frame.body.readUInt16BE(3) };
}
