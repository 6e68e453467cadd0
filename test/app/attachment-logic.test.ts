/**
 * The pure logic of attachments in the app (issue 28): the size an image is scaled to and
 * the type it is re-encoded as, the host's limits read from host.info, and the words that
 * refuse files past them before anything is sent.
 */
import { describe, expect, it } from 'vitest';
import {
  attachmentLimitsOf,
  attachmentRefusal,
} from '../../remote/app/src/logic/attachment-limits.js';
import { encodedName, encodedType, scaledSize } from '../../remote/app/src/logic/image-scaling.js';

const MiB = 1024 * 1024;

describe('scaledSize', () => {
  it('brings the long side down to 2,048 px, keeping the ratio', () => {
    expect(scaledSize(4032, 3024)).toEqual({ width: 2048, height: 1536 });
    expect(scaledSize(3024, 4032)).toEqual({ width: 1536, height: 2048 });
    expect(scaledSize(3000, 1500)).toEqual({ width: 2048, height: 1024 });
    expect(scaledSize(2049, 2049)).toEqual({ width: 2048, height: 2048 });
  });

  it('never scales up, and never to nothing', () => {
    expect(scaledSize(2048, 100)).toEqual({ width: 2048, height: 100 });
    expect(scaledSize(400, 300)).toEqual({ width: 400, height: 300 });
    expect(scaledSize(100_000, 10)).toEqual({ width: 2048, height: 1 });
  });
});

describe('encodedType and encodedName', () => {
  it('re-encodes photos as JPEG and what may be transparent as PNG', () => {
    expect(encodedType('image/jpeg')).toBe('image/jpeg');
    expect(encodedType('image/heic')).toBe('image/jpeg');
    expect(encodedType('image/png')).toBe('image/png');
    expect(encodedType('image/webp')).toBe('image/png');
    expect(encodedType('image/gif')).toBe('image/png');
  });

  it('names the file for its new type', () => {
    expect(encodedName('IMG_1234.HEIC', 'image/jpeg')).toBe('IMG_1234.jpg');
    expect(encodedName('screen shot.png', 'image/png')).toBe('screen shot.png');
    expect(encodedName('photo', 'image/jpeg')).toBe('photo.jpg');
    expect(encodedName('.jpg', 'image/jpeg')).toBe('image.jpg');
  });
});

describe('attachmentLimitsOf', () => {
  it('reads the host limits, and the defaults where host.info states none', () => {
    expect(
      attachmentLimitsOf({ attachmentMaxBytes: MiB, runAttachmentsMaxBytes: 3 * MiB }),
    ).toEqual({ eachMaxBytes: MiB, runMaxBytes: 3 * MiB });
    expect(attachmentLimitsOf(undefined)).toEqual({
      eachMaxBytes: 20 * MiB,
      runMaxBytes: 50 * MiB,
    });
    expect(attachmentLimitsOf({ attachmentMaxBytes: -1, runAttachmentsMaxBytes: 'x' })).toEqual({
      eachMaxBytes: 20 * MiB,
      runMaxBytes: 50 * MiB,
    });
  });
});

describe('attachmentRefusal', () => {
  const limits = { eachMaxBytes: 2 * MiB, runMaxBytes: 5 * MiB };

  it('takes files within both bounds', () => {
    expect(attachmentRefusal([], limits, 'Mac')).toBeUndefined();
    expect(
      attachmentRefusal(
        [
          { name: 'a.jpg', size: 2 * MiB },
          { name: 'b.jpg', size: 2 * MiB },
        ],
        limits,
        'Mac',
      ),
    ).toBeUndefined();
  });

  it('names a file past the bound of one file', () => {
    expect(attachmentRefusal([{ name: 'video.mov', size: 2 * MiB + 1 }], limits, 'Mac mini')).toBe(
      'video.mov is 2.0 MB: Mac mini takes files of at most 2.0 MB each. Remove it, or scale it down.',
    );
  });

  it('says what the files come to past the bound of one task', () => {
    const files = [1, 2, 3].map((n) => ({ name: `${n}.jpg`, size: 2 * MiB }));
    expect(attachmentRefusal(files, limits, 'Mac')).toBe(
      'These files come to 6.0 MB: Mac takes at most 5.0 MB of them for one task. Remove some.',
    );
  });

  it('refuses more files than a run may be given', () => {
    const files = Array.from({ length: 18 }, (_, n) => ({ name: `${n}.txt`, size: 1 }));
    expect(attachmentRefusal(files, limits, 'Mac')).toBe(
      'A task takes at most 16 files: remove 2.',
    );
  });
});
