/**
 * Full tool outputs and artifacts live in files under the data directory; rows hold their
 * size, digest and truncation. Reads are paged so no read holds a whole big file.
 */
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { OutputFile } from './tool-records.js';

/**
 * Writes `text` to `path`, then fsyncs the file and its folder (the new name must survive
 * a crash too), so a row that names the file never outlives it.
 */
export function writeDurableFile(path: string, text: string, truncated = false): OutputFile {
  const bytes = Buffer.from(text, 'utf8');
  const fd = openSync(path, 'w', 0o600);
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const folder = openSync(dirname(path), 'r');
  try {
    fsyncSync(folder);
  } finally {
    closeSync(folder);
  }
  return {
    path,
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    truncated,
  };
}

/** One page of a stored file, as `output.read` and `artifact.read` answer it. */
export type FilePage = {
  text: string;
  offset: number;
  nextOffset: number;
  eof: boolean;
  totalBytes: number;
  truncated: boolean;
};

/**
 * Reads up to `limit` bytes from `offset`, ending on a UTF-8 character boundary so a
 * page never splits a character (the next page starts where this one stopped).
 */
export function readFilePage(file: OutputFile, offset: number, limit: number): FilePage {
  const totalBytes = statSync(file.path).size;
  const start = Math.min(offset, totalBytes);
  const buffer = Buffer.alloc(Math.min(limit, totalBytes - start));
  const fd = openSync(file.path, 'r');
  let read: number;
  try {
    read = readSync(fd, buffer, 0, buffer.length, start);
  } finally {
    closeSync(fd);
  }
  let end = read;
  if (start + read < totalBytes) {
    // Back off over continuation bytes (10xxxxxx) to the start of a character.
    let cut = end;
    while (cut > 0 && (buffer[cut - 1]! & 0xc0) === 0x80) cut--;
    if (cut > 0 && buffer[cut - 1]! >= 0xc0) cut--;
    if (cut > 0) end = cut;
  }
  const nextOffset = start + end;
  return {
    text: buffer.subarray(0, end).toString('utf8'),
    offset: start,
    nextOffset,
    eof: nextOffset >= totalBytes,
    totalBytes,
    truncated: file.truncated,
  };
}
