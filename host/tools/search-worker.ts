/**
 * The thread search_files runs its regular expression in. A JavaScript regex backtracks,
 * so one pattern on one line can run for hours; here it can only block this thread, which
 * the host terminates at the search's deadline while its own event loop keeps serving.
 * The host walks the tree (it alone knows what is protected) and sends the files in
 * batches; the thread reads each one, matches it line by line and reports after each batch,
 * so what it found survives its termination.
 */
import type * as FileSystem from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';

/** What the thread is started with. */
export interface SearchSetup {
  source: string;
  flags: string;
  /** Larger files are skipped. */
  maxFileBytes: number;
  /** The search stops before reading past this many bytes in all. */
  maxTotalBytes: number;
  /** Characters of a line that are matched; the rest of a longer line is not. */
  maxLineChars: number;
  /** Characters of a matching line that are shown, around the match. */
  shownChars: number;
  /** Matches whose text is sent; later ones are only counted. */
  maxResults: number;
  /**
   * Int32Array of one cell: the number of the file being matched, counting from 0 over
   * every batch, or -1 between batches.
   */
  progress: SharedArrayBuffer;
}

/** A batch of files to search, or the end of the walk. */
export type SearchBatch = { files: { absolute: string; shown: string }[] } | { done: true };

/** One matching line. */
export interface SearchHit {
  shown: string;
  line: number;
  text: string;
}

/** What one batch found (counts for that batch only); `final` answers the end of the walk. */
export interface SearchReport {
  hits: SearchHit[];
  searched: number;
  matches: number;
  matchedFiles: number;
  bytes: number;
  binary: number;
  large: number;
  special: number;
  unreadable: number;
  /** Lines longer than `maxLineChars`, matched in their first characters only. */
  longLines: number;
  /** Files of the batch not searched because the byte cap was reached. */
  notSearched: number;
  byteCapReached: boolean;
  final: boolean;
}

/** Starts a search thread; post {@link SearchBatch}es, read {@link SearchReport}s. */
export function startSearchWorker(setup: SearchSetup): Worker {
  const source =
    `const { parentPort, workerData } = require('node:worker_threads');\n` +
    [emptyReport, shownText, readWhole, searchText].map((helper) => helper.toString()).join('\n') +
    `\n(${runSearch.toString()})(parentPort, workerData, require('node:fs'));`;
  // A regex does not need much memory; a bound keeps a runaway one from taking the host's.
  return new Worker(source, {
    eval: true,
    workerData: setup,
    resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 },
  });
}

// These run inside the thread from their source text: each may use only its parameters,
// globals and the functions before it in the thread's source.

/** A report with nothing in it yet. */
function emptyReport(): SearchReport {
  return {
    hits: [],
    searched: 0,
    matches: 0,
    matchedFiles: 0,
    bytes: 0,
    binary: 0,
    large: 0,
    special: 0,
    unreadable: 0,
    longLines: 0,
    notSearched: 0,
    byteCapReached: false,
    final: false,
  };
}

/** At most `chars` of `line` around the match at `at`, with "…" where it was cut. */
function shownText(line: string, at: number, chars: number): string {
  if (line.length <= chars) return line;
  const start = Math.max(0, Math.min(at - 40, line.length - chars));
  const end = start + chars;
  return (start > 0 ? '…' : '') + line.slice(start, end) + (end < line.length ? '…' : '');
}

/** Reads the file at `fd` into `buffer` until its end or the buffer is full; its length. */
function readWhole(fs: typeof FileSystem, fd: number, buffer: Buffer): number {
  let length = 0;
  for (;;) {
    const read = fs.readSync(fd, buffer, length, buffer.length - length, null);
    if (read === 0) break;
    length += read;
    if (length === buffer.length) break;
  }
  return length;
}

/**
 * Matches `text` (the file shown as `shown`) line by line into `report`, showing at most
 * `setup.maxResults` hits in all: `hitsSent` were shown before; answers how many are now.
 */
function searchText(
  text: string,
  shown: string,
  report: SearchReport,
  regex: RegExp,
  setup: SearchSetup,
  hitsSent: number,
): number {
  let fileMatches = 0;
  let line = 1;
  for (let start = 0; start < text.length; line += 1) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const contentEnd = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    const long = contentEnd - start > setup.maxLineChars;
    if (long) report.longLines += 1;
    const scanned = text.slice(start, long ? start + setup.maxLineChars : contentEnd);
    const match = regex.exec(scanned);
    if (match !== null) {
      fileMatches += 1;
      if (hitsSent < setup.maxResults) {
        hitsSent += 1;
        report.hits.push({
          shown,
          line,
          text: shownText(scanned, match.index, setup.shownChars),
        });
      }
    }
    start = end + 1;
  }
  report.matches += fileMatches;
  if (fileMatches > 0) report.matchedFiles += 1;
  return hitsSent;
}

function runSearch(port: MessagePort, setup: SearchSetup, fs: typeof FileSystem): void {
  const SNIFF_BYTES = 8 * 1024;
  const regex = new RegExp(setup.source, setup.flags);
  const progress = new Int32Array(setup.progress);
  const buffer = Buffer.allocUnsafe(setup.maxFileBytes + 1);
  const openFlags = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW;
  let next = 0;
  let totalBytes = 0;
  let hitsSent = 0;
  let byteCapReached = false;

  const searchFile = (file: { absolute: string; shown: string }, report: SearchReport): void => {
    let fd: number;
    try {
      fd = fs.openSync(file.absolute, openFlags);
    } catch {
      report.unreadable += 1;
      return;
    }
    try {
      const stats = fs.fstatSync(fd);
      if (!stats.isFile()) {
        report.special += 1;
        return;
      }
      if (stats.size > setup.maxFileBytes) {
        report.large += 1;
        return;
      }
      if (totalBytes + stats.size > setup.maxTotalBytes) {
        byteCapReached = true;
        report.notSearched += 1;
        return;
      }
      const length = readWhole(fs, fd, buffer);
      // It grew past the cap since fstat.
      if (length > setup.maxFileBytes) {
        report.large += 1;
        return;
      }
      totalBytes += length;
      report.bytes += length;
      if (buffer.subarray(0, Math.min(length, SNIFF_BYTES)).includes(0)) {
        report.binary += 1;
        return;
      }
      report.searched += 1;
      hitsSent = searchText(
        buffer.toString('utf8', 0, length),
        file.shown,
        report,
        regex,
        setup,
        hitsSent,
      );
    } catch {
      report.unreadable += 1;
    } finally {
      fs.closeSync(fd);
    }
  };

  let report = emptyReport();
  let reportedAt = performance.now();
  const send = (final: boolean): void => {
    report.byteCapReached = byteCapReached;
    report.final = final;
    port.postMessage(report);
    report = emptyReport();
    reportedAt = performance.now();
  };

  port.on('message', (batch: SearchBatch) => {
    if ('done' in batch) return send(true);
    for (const file of batch.files) {
      Atomics.store(progress, 0, next);
      next += 1;
      if (byteCapReached) report.notSearched += 1;
      else searchFile(file, report);
      // Reported early, what was found survives a termination by the next file's pattern.
      if (report.hits.length > 0 || performance.now() - reportedAt > 50) send(false);
    }
    Atomics.store(progress, 0, -1);
    send(false);
  });
}
