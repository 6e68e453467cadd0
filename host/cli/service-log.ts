/**
 * Reading what the service left: the end of the host's JSON log and of the service's own
 * output (`logs/service.log`, the host's stdout and stderr), lines as a person reads them,
 * and the last line that says why the host stopped.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { z } from 'zod';
import { LOG_LEVELS } from '../log/index.js';

const LogEntry = z.looseObject({ at: z.string(), level: z.enum(LOG_LEVELS), msg: z.string() });

const CHUNK_BYTES = 64 * 1024;

/**
 * The last `count` lines of a file, read from its end: the service's output is never
 * rotated and may be large.
 */
export function readLastLines(path: string, count: number): string[] {
  const fd = openSync(path, 'r');
  try {
    let start = fstatSync(fd).size;
    const chunks: Buffer[] = [];
    let newlines = 0;
    // One newline more than lines wanted: the first line read may be cut.
    while (start > 0 && newlines <= count) {
      const from = Math.max(0, start - CHUNK_BYTES);
      const chunk = Buffer.alloc(start - from);
      readSync(fd, chunk, 0, chunk.length, from);
      chunks.unshift(chunk);
      for (const byte of chunk) if (byte === 0x0a) newlines++;
      start = from;
    }
    const lines = Buffer.concat(chunks).toString('utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    if (start > 0) lines.shift();
    return lines.slice(-count);
  } finally {
    closeSync(fd);
  }
}

function showValue(value: unknown): string {
  return typeof value === 'string' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
}

/**
 * A line of `host.log` as `2026-05-01 09:30:12Z warn  msg key=value …`; any other line
 * (the service's own output, a header) as it is.
 */
export function humanLogLine(line: string): string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return line;
  }
  const entry = LogEntry.safeParse(value);
  if (!entry.success) return line;
  const { at, level, msg, ...fields } = entry.data;
  const when = at.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  const extra = Object.entries(fields).map(([key, field]) => ` ${key}=${showValue(field)}`);
  return `${when} ${level.padEnd(5)} ${msg}${extra.join('')}`;
}

/**
 * Lines of the host's output that report an error: `tether: …` (a failed start, printed by
 * the command), `error: …` (an error entry of the log), and an uncaught `…Error: …`.
 */
const ERROR_LINE = /^(tether: |error: |[A-Za-z]*Error( \[\w+\])?: )/;

/** The last error line among `lines` (the end of the service's output), or null. */
export function lastErrorLine(lines: readonly string[]): string | null {
  return lines.findLast((line) => ERROR_LINE.test(line)) ?? null;
}

/** What a failed start says another program holds: a port, or the data directory. */
type Taken = { port: number } | { dataDir: string };

/**
 * What an error line says is taken: the host's `port N on ADDR is already in use`
 * (host/cli/start-host.ts) or Node's `listen EADDRINUSE: … ADDR:N`, or the data directory's
 * lock held by `another Tether host` (host/store/data-dir-lock.ts).
 */
export function takenResource(line: string): Taken | null {
  const port =
    /\bport (\d+) on \S+ is already in use\b/.exec(line) ?? /\bEADDRINUSE\b.*:(\d+)\s*$/.exec(line);
  if (port?.[1] !== undefined) return { port: Number(port[1]) };
  const dataDir = /another Tether host is running on the data directory (.+?) \(it holds /.exec(
    line,
  );
  return dataDir?.[1] === undefined ? null : { dataDir: dataDir[1] };
}
