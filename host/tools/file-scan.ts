/**
 * One streaming pass over a file's bytes: the SHA-256 and size of the whole file, its line
 * count, whether it is binary, and a bounded copy of a range of its lines. Memory stays
 * at one chunk plus the cap whatever the file's size.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';

/** Lines `first` to `last`, counted from 1, both included. */
export interface LineRange {
  first: number;
  last: number;
}

/** What one pass learned about a file. */
export interface FileScan {
  /** Lowercase hex SHA-256 of all the file's bytes. */
  sha256: string;
  bytes: number;
  /** Newline-terminated lines, plus one for a last line without a newline. */
  lines: number;
  /** A NUL byte in the first 8 KiB, or bytes that are not UTF-8. */
  binary: boolean;
  /** The bytes of the range's lines, at most the cap, ending on a character boundary. */
  kept: Buffer;
  /** Whether bytes of the range were dropped because of the cap. */
  cut: boolean;
}

const CHUNK_BYTES = 128 * 1024;
const NUL_SNIFF_BYTES = 8 * 1024;
const NEWLINE = 0x0a;

/**
 * Reads `handle` from its current position to the end once. Throws the signal's reason
 * when it aborts, and file-system errors as they come.
 */
export async function scanFile(
  handle: FileHandle,
  range: LineRange,
  maxBytes: number,
  signal: AbortSignal,
): Promise<FileScan> {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  const kept = Buffer.allocUnsafe(maxBytes);
  let keptBytes = 0;
  let cut = false;
  let bytes = 0;
  let newlines = 0;
  let lastByte = NEWLINE;
  let line = 1;
  let binary = false;
  // A UTF-8 sequence split by the end of the previous chunk, validated with the next one.
  let pending = Buffer.alloc(0);

  for (;;) {
    signal.throwIfAborted();
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
    if (bytesRead === 0) break;
    const data = chunk.subarray(0, bytesRead);
    hash.update(data);
    if (bytes < NUL_SNIFF_BYTES && data.subarray(0, NUL_SNIFF_BYTES - bytes).includes(0)) {
      binary = true;
    }
    if (!binary) {
      const text = pending.length === 0 ? data : Buffer.concat([pending, data]);
      const complete = completeUtf8Length(text);
      binary = !isUtf8(text.subarray(0, complete));
      pending = Buffer.from(text.subarray(complete));
    }
    bytes += bytesRead;
    lastByte = data[bytesRead - 1] ?? lastByte;

    let start = 0;
    while (start < data.length) {
      const newline = data.indexOf(NEWLINE, start);
      const end = newline === -1 ? data.length : newline + 1;
      if (line >= range.first && line <= range.last && !cut) {
        const part = data.subarray(start, Math.min(end, start + maxBytes - keptBytes));
        keptBytes += part.copy(kept, keptBytes);
        cut = part.length < end - start;
      }
      if (newline === -1) break;
      newlines += 1;
      line += 1;
      start = end;
    }
  }

  const text = kept.subarray(0, keptBytes);
  return {
    sha256: hash.digest('hex'),
    bytes,
    lines: newlines + (lastByte === NEWLINE ? 0 : 1),
    binary: binary || pending.length > 0,
    kept: cut ? text.subarray(0, completeUtf8Length(text)) : text,
    cut,
  };
}

/** Length of `bytes` without a trailing UTF-8 sequence that is cut short. */
function completeUtf8Length(bytes: Buffer): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 4); i -= 1) {
    const byte = bytes[i] ?? 0;
    if ((byte & 0xc0) === 0x80) continue;
    const size = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return i + size > bytes.length ? i : bytes.length;
  }
  return bytes.length;
}
