/**
 * A command's output on its way to the output file: stdout and stderr interleaved as they
 * arrive, written up to a byte cap and drained and dropped past it, decoded for the live
 * tail, and the first and last few KiB of the whole stream kept for the model.
 *
 * Writes are asynchronous and serial. When the disk falls more than a MiB behind, the
 * pipes are paused until it catches up: the command then writes at disk speed, as it would
 * with `> file`, and the host holds at most that MiB. Past the cap nothing is written and
 * nothing pauses, so the command is never held up by output nobody keeps.
 */
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { expectErrnoCode } from './expect-errno.js';

/** Bytes from the start and from the end of the output that the model's excerpt shows. */
export const EXCERPT_EDGE_BYTES = 8 * 1024;

const HIGH_WATER_BYTES = 1024 * 1024;
const LOW_WATER_BYTES = 256 * 1024;

/** The start and end of the output as text; `tail` is empty when `head` is all of it. */
export interface OutputExcerpt {
  head: string;
  tail: string;
  /** Bytes between `head` and `tail`. */
  omittedBytes: number;
}

/** What {@link OutputCapture.finish} reports. */
export interface CapturedOutput {
  /** Bytes the command wrote to stdout and stderr together. */
  totalBytes: number;
  /** Bytes in the output file. */
  fileBytes: number;
  /** SHA-256 of the bytes in the output file. */
  sha256: string;
  excerpt: OutputExcerpt;
  /** The errno code of a failed write, fsync or close; the file then stops short. */
  writeError: string | null;
}

/** Where the output goes, and who hears about it. */
export interface OutputCaptureOptions {
  /** The open output file, or null to keep nothing but the excerpt. */
  file: FileHandle | null;
  capBytes: number;
  /** The live tail: text as decoded, and the characters (UTF-16 units) streamed before it. */
  onChunk?: (text: string, offset: number) => void;
}

/** Collects the output of the streams attached to it; {@link finish} once they closed. */
export class OutputCapture {
  readonly #options: OutputCaptureOptions;
  readonly #streams: Readable[] = [];
  readonly #hash = createHash('sha256');
  #head = Buffer.alloc(0);
  #tail = Buffer.alloc(0);
  #totalBytes = 0;
  #acceptedBytes = 0;
  #fileBytes = 0;
  #queuedBytes = 0;
  #paused = false;
  #writing: Promise<void> = Promise.resolve();
  #writeError: string | null = null;
  #characters = 0;

  constructor(options: OutputCaptureOptions) {
    this.#options = options;
  }

  /** Reads `stream` to its end; resolves once it has closed (ended, failed or destroyed). */
  attach(stream: Readable): Promise<void> {
    this.#streams.push(stream);
    // One decoder a stream: a character split across two chunks of stdout stays whole
    // even when stderr speaks in between. StringDecoder rather than TextDecoder: it does
    // the same streaming decode some seven times faster (1 GB: 0.27 s against 1.8 s).
    const decoder = new StringDecoder('utf8');
    stream.on('data', (chunk: Buffer) => {
      this.#take(chunk);
      this.#emit(decoder.write(chunk));
    });
    // A read error ends the output like an end of file; 'close' follows it.
    stream.on('error', () => {});
    return new Promise((resolve) => {
      stream.once('close', () => {
        this.#emit(decoder.end());
        resolve();
      });
    });
  }

  /** Waits for the queued writes, fsyncs and closes the file, and reports. */
  async finish(): Promise<CapturedOutput> {
    await this.#writing;
    const { file } = this.#options;
    if (file !== null) {
      try {
        await file.sync();
      } catch (error) {
        this.#writeError ??= expectErrnoCode(error);
      } finally {
        await file.close().catch((error: unknown) => {
          this.#writeError ??= expectErrnoCode(error);
        });
      }
    }
    return {
      totalBytes: this.#totalBytes,
      fileBytes: this.#fileBytes,
      sha256: this.#hash.digest('hex'),
      excerpt: this.#excerpt(),
      writeError: this.#writeError,
    };
  }

  #take(chunk: Buffer): void {
    this.#totalBytes += chunk.length;
    if (this.#head.length < EXCERPT_EDGE_BYTES) {
      const room = EXCERPT_EDGE_BYTES - this.#head.length;
      this.#head = Buffer.concat([this.#head, chunk.subarray(0, room)]);
    }
    if (chunk.length >= EXCERPT_EDGE_BYTES) {
      // A copy, so the tail does not hold on to the whole chunk.
      this.#tail = Buffer.from(chunk.subarray(chunk.length - EXCERPT_EDGE_BYTES));
    } else {
      const joined = Buffer.concat([this.#tail, chunk]);
      this.#tail = joined.subarray(Math.max(0, joined.length - EXCERPT_EDGE_BYTES));
    }
    const room = this.#options.capBytes - this.#acceptedBytes;
    if (this.#options.file === null || room <= 0 || this.#writeError !== null) return;
    const kept = room >= chunk.length ? chunk : chunk.subarray(0, room);
    this.#acceptedBytes += kept.length;
    this.#queuedBytes += kept.length;
    if (this.#queuedBytes > HIGH_WATER_BYTES && !this.#paused) {
      this.#paused = true;
      for (const stream of this.#streams) stream.pause();
    }
    const file = this.#options.file;
    this.#writing = this.#writing.then(() => this.#write(file, kept));
  }

  async #write(file: FileHandle, bytes: Buffer): Promise<void> {
    if (this.#writeError === null) {
      try {
        for (let offset = 0; offset < bytes.length;) {
          offset += (await file.write(bytes, offset)).bytesWritten;
        }
        this.#hash.update(bytes);
        this.#fileBytes += bytes.length;
      } catch (error) {
        this.#writeError = expectErrnoCode(error);
      }
    }
    this.#queuedBytes -= bytes.length;
    if (this.#paused && this.#queuedBytes <= LOW_WATER_BYTES) {
      this.#paused = false;
      for (const stream of this.#streams) stream.resume();
    }
  }

  #emit(text: string): void {
    if (text === '') return;
    const offset = this.#characters;
    this.#characters += text.length;
    this.#options.onChunk?.(text, offset);
  }

  #excerpt(): OutputExcerpt {
    const head = this.#head;
    const tail = this.#tail;
    if (this.#totalBytes <= head.length + tail.length) {
      const rest = this.#totalBytes - head.length;
      const whole = Buffer.concat([head, tail.subarray(tail.length - rest)]);
      return { head: whole.toString('utf8'), tail: '', omittedBytes: 0 };
    }
    // Cut at character boundaries: drop a sequence the head leaves unfinished and the
    // continuation bytes the tail starts with.
    const headBytes = head.subarray(0, head.length - unfinishedSequence(head));
    let start = 0;
    while (start < 3 && start < tail.length && isContinuation(tail[start]!)) start++;
    const tailBytes = tail.subarray(start);
    return {
      head: headBytes.toString('utf8'),
      tail: tailBytes.toString('utf8'),
      omittedBytes: this.#totalBytes - headBytes.length - tailBytes.length,
    };
  }
}

/** Bytes at the end of `bytes` that begin a UTF-8 sequence it does not finish. */
function unfinishedSequence(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if (isContinuation(byte)) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}
