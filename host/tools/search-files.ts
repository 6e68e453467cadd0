/**
 * `search_files {pattern, path?, glob?, caseSensitive?, maxResults?}`: the lines of text
 * files below a folder that match a regular expression, as `path:line: text`. The host
 * walks the tree (workspace-walk.ts); a worker thread matches (search-worker.ts) and is
 * terminated at the deadline, so a pattern that backtracks without end costs one bounded
 * call, never the host's event loop.
 */
import { z } from 'zod';
import { formatBytes } from './format-bytes.js';
import {
  counted,
  describeSkipped,
  describeWalkStop,
  fitLines,
  globInput,
  globMatcher,
  previewSearch,
  resolveSearchScope,
  SEARCH_DEADLINE_MS,
  SEARCH_MAX_ENTRIES,
  searchPathInput,
  showPath,
} from './search-scope.js';
import type { SearchScope, SearchToolOptions } from './search-scope.js';
import { startSearchWorker } from './search-worker.js';
import type { SearchBatch, SearchHit, SearchReport } from './search-worker.js';
import { failedResult, fileSystemFailure } from './tool-result.js';
import { defineTool } from './tool-input.js';
import type { ToolContext, ToolDefinition, ToolResult } from './types.js';
import { emptyWalkStats, walkFiles } from './workspace-walk.js';
import type { WalkStats } from './workspace-walk.js';
import { errorMessage } from '../../protocol/index.js';

/** Matching lines returned when the input has no `maxResults`. */
const SEARCH_DEFAULT_RESULTS = 50;
/** Most matching lines one call returns. */
const SEARCH_MAX_RESULTS = 500;
/** Files larger than this are skipped. */
const SEARCH_MAX_FILE_BYTES = 2 * 1024 * 1024;
/** The search stops before reading more than this in all. */
const SEARCH_MAX_TOTAL_BYTES = 512 * 1024 * 1024;
/** Characters of a line matched; a longer line (minified code) is matched in its start. */
const SEARCH_MAX_LINE_CHARS = 4096;
/** Characters of a matching line shown, around the match. */
const SEARCH_SHOWN_CHARS = 200;
/** Files sent to the worker at a time. */
const BATCH_FILES = 128;

/**
 * The regex flags for `pattern`: `i` unless `caseSensitive` is true, or it is unset and the
 * pattern has an upper-case letter outside an escape (smart case); `u` when the pattern is
 * valid with it. Throws the SyntaxError of an invalid pattern.
 */
function compilePattern(pattern: string, caseSensitive: boolean | undefined): RegExp {
  const literal = pattern.replace(/\\[pPk]\{[^}]*\}|\\./gu, '');
  const sensitive = caseSensitive ?? /\p{Lu}/u.test(literal);
  const flags = sensitive ? '' : 'i';
  try {
    return new RegExp(pattern, `${flags}u`);
  } catch {
    return new RegExp(pattern, flags);
  }
}

const searchFilesInput = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .max(1000)
    .superRefine((pattern, ctx) => {
      try {
        compilePattern(pattern, true);
      } catch (error) {
        const reason = errorMessage(error);
        ctx.addIssue({ code: 'custom', message: `not a valid regular expression (${reason})` });
      }
    })
    .describe(
      'JavaScript regular expression matched against each line, e.g. "function \\\\w+\\\\(" ' +
        'or "TODO|FIXME". A line matches once however many times the pattern occurs in it.',
    ),
  path: searchPathInput,
  glob: globInput
    .optional()
    .describe(
      'Only files matching this glob: "*.ts" matches names, "src/**/*.ts" paths below path.',
    ),
  caseSensitive: z
    .boolean()
    .optional()
    .describe(
      'Default: case-insensitive unless the pattern has an upper-case letter (smart case).',
    ),
  maxResults: z
    .int()
    .min(1)
    .max(SEARCH_MAX_RESULTS)
    .optional()
    .describe(`Most matching lines to return (default ${SEARCH_DEFAULT_RESULTS}).`),
});

/** Validated input of `search_files`. */
export type SearchFilesInput = z.infer<typeof searchFilesInput>;

/** Counts over every batch the worker reported. */
type Totals = Omit<SearchReport, 'hits' | 'final' | 'byteCapReached'>;

/** How the matching ended. */
type Outcome =
  | { kind: 'done' }
  | { kind: 'deadline' }
  | { kind: 'cancelled' }
  | { kind: 'walk_failed'; error: unknown }
  | { kind: 'crashed'; message: string };

/** The `search_files` tool, skipping what `options.protectedPaths` protects. */
export function createSearchFilesTool(
  options: SearchToolOptions,
): ToolDefinition<SearchFilesInput> {
  const deadlineMs = options.deadlineMs ?? SEARCH_DEADLINE_MS;
  return defineTool<SearchFilesInput>({
    name: 'search_files',
    description:
      `Search text files in the workspace for a regular expression, like grep -rn. Returns ` +
      `matching lines as "path:line: text" (paths relative to the workspace, long lines cut ` +
      `around the match) after a header with the counts, up to maxResults (default ` +
      `${SEARCH_DEFAULT_RESULTS}, at most ${SEARCH_MAX_RESULTS}), and says how many more ` +
      `there are. Skips what .gitignore ignores, folders such as node_modules, .git and dist ` +
      `(name one as path to search it), binary files, files over ` +
      `${formatBytes(SEARCH_MAX_FILE_BYTES)}, protected files and symlinks. Stops after ` +
      `${deadlineMs / 1000} s and says so. Use read_file to see a match in context. It never ` +
      `needs approval: prefer it to grep through run_command, which asks every time.`,
    input: searchFilesInput,
    access: (input) => ({ kind: 'read', path: input.path ?? '.' }),
    preview: (input, ctx) => previewSearch(input.path ?? '.', ctx),
    async execute(input, ctx) {
      const scope = await resolveSearchScope('search_files', input.path ?? '.', ctx, options);
      if (!('root' in scope)) return scope;
      return search(input, scope, ctx, deadlineMs);
    },
  });
}

async function search(
  input: SearchFilesInput,
  scope: SearchScope,
  ctx: ToolContext,
  deadlineMs: number,
): Promise<ToolResult> {
  const started = performance.now();
  const deadline = started + deadlineMs;
  const regex = compilePattern(input.pattern, input.caseSensitive);
  const maxResults = input.maxResults ?? SEARCH_DEFAULT_RESULTS;
  const matchesGlob = input.glob === undefined ? () => true : globMatcher(input.glob);
  const progress = new SharedArrayBuffer(4);
  new Int32Array(progress)[0] = -1;
  const worker = startSearchWorker({
    source: regex.source,
    flags: regex.flags,
    maxFileBytes: SEARCH_MAX_FILE_BYTES,
    maxTotalBytes: SEARCH_MAX_TOTAL_BYTES,
    maxLineChars: SEARCH_MAX_LINE_CHARS,
    shownChars: SEARCH_SHOWN_CHARS,
    maxResults,
    progress,
  });
  const hits: SearchHit[] = [];
  const totals: Totals = {
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
  };
  let byteCapReached = false;
  let settle: (outcome: Outcome) => void = () => {};
  const outcome = new Promise<Outcome>((resolve) => (settle = resolve));
  let settled = false;
  void outcome.then(() => (settled = true));
  worker.on('message', (report: SearchReport) => {
    hits.push(...report.hits);
    for (const key of Object.keys(totals) as (keyof Totals)[]) totals[key] += report[key];
    byteCapReached = report.byteCapReached;
    if (report.final) settle({ kind: 'done' });
  });
  worker.on('error', (error) => settle({ kind: 'crashed', message: error.message }));
  worker.on('exit', (code) => settle({ kind: 'crashed', message: `exit code ${code}` }));
  const timer = setTimeout(() => settle({ kind: 'deadline' }), deadlineMs);
  const onAbort = () => settle({ kind: 'cancelled' });
  ctx.signal.addEventListener('abort', onAbort, { once: true });

  const stats = emptyWalkStats();
  const walk = { ...scope, signal: ctx.signal, deadline, maxEntries: SEARCH_MAX_ENTRIES };
  const fed = feedWorker(worker, walk, stats, matchesGlob, () => settled, settle);
  const ended = await outcome;
  clearTimeout(timer);
  ctx.signal.removeEventListener('abort', onAbort);
  const busyWith = Atomics.load(new Int32Array(progress), 0);
  await worker.terminate();

  switch (ended.kind) {
    case 'cancelled':
      return failedResult('cancelled', 'search_files was cancelled');
    case 'walk_failed':
      return fileSystemFailure(ended.error, scope.where);
    case 'done':
    case 'deadline':
    case 'crashed':
      break;
  }
  const elapsedMs = Math.round(performance.now() - started);
  const stop = incompleteLine(
    ended,
    { totals, stats, sent: fed.sent, busyWith, byteCapReached },
    deadlineMs,
  );
  return describeSearch(input, scope, {
    hits,
    totals,
    stats,
    globSkipped: fed.globSkipped,
    stop,
    stopped: ended.kind === 'done' ? (byteCapReached ? 'byte_cap' : stats.stopped) : ended.kind,
    elapsedMs,
  });
}

/** The files walked so far: sent to the search thread, in order, or skipped by the glob. */
interface FedFiles {
  sent: string[];
  globSkipped: number;
}

/**
 * Walks the scope and posts its files to the search thread in batches, then `done`. Not
 * awaited: a folder that takes long to read (a network mount) must not hold the call past
 * its deadline or a cancel; the walk notices the end at its next file.
 */
function feedWorker(
  worker: ReturnType<typeof startSearchWorker>,
  walk: Parameters<typeof walkFiles>[0],
  stats: WalkStats,
  matchesGlob: (underRoot: string) => boolean,
  settled: () => boolean,
  settle: (outcome: Outcome) => void,
): FedFiles {
  const fed: FedFiles = { sent: [], globSkipped: 0 };
  const post = (message: SearchBatch) => worker.postMessage(message);
  void (async () => {
    try {
      let batch: { absolute: string; shown: string }[] = [];
      for await (const file of walkFiles(walk, stats)) {
        if (settled()) break;
        if (!matchesGlob(file.underRoot)) {
          fed.globSkipped += 1;
          continue;
        }
        batch.push({ absolute: file.absolute, shown: file.shown });
        fed.sent.push(file.shown);
        if (batch.length === BATCH_FILES) {
          post({ files: batch });
          batch = [];
        }
      }
      if (!settled()) {
        if (batch.length > 0) post({ files: batch });
        post({ done: true });
      }
    } catch (error) {
      settle(walk.signal.aborted ? { kind: 'cancelled' } : { kind: 'walk_failed', error });
    }
  })();
  return fed;
}

/** Why a search that ended as `ended` looked at less than everything, or the walk's stop. */
function incompleteLine(
  ended: Outcome,
  facts: {
    totals: Totals;
    stats: WalkStats;
    sent: readonly string[];
    /** The index in `sent` of the file the thread was matching, or -1. */
    busyWith: number;
    byteCapReached: boolean;
  },
  deadlineMs: number,
): string | null {
  const { totals, stats, sent, busyWith, byteCapReached } = facts;
  const looked =
    totals.searched + totals.binary + totals.large + totals.special + totals.unreadable;
  const unsearched = sent.length - looked;
  let stop = describeWalkStop(stats, deadlineMs);
  if (ended.kind === 'deadline') {
    const where = busyWith >= 0 && busyWith < sent.length ? sent[busyWith] : undefined;
    stop =
      `INCOMPLETE: stopped at the ${deadlineMs} ms deadline` +
      (where === undefined ? '' : ` while matching ${showPath(where)}`) +
      `; ${unsearched} files not searched. A pattern with nested repetition like (a+)+ can ` +
      `take forever on one line: simplify it, or narrow path/glob`;
  } else if (ended.kind === 'crashed') {
    stop = `INCOMPLETE: the search thread stopped (${ended.message}); ${unsearched} files not searched`;
  } else if (byteCapReached) {
    stop =
      `INCOMPLETE: stopped at the ${formatBytes(SEARCH_MAX_TOTAL_BYTES)} read cap; ` +
      `${totals.notSearched} files not searched; narrow path or glob`;
  }
  return stop;
}

interface SearchOutcome {
  hits: SearchHit[];
  totals: Totals;
  stats: WalkStats;
  globSkipped: number;
  /** The INCOMPLETE line, or null for a search that looked at everything. */
  stop: string | null;
  stopped: string | null;
  elapsedMs: number;
}

function describeSearch(
  input: SearchFilesInput,
  scope: SearchScope,
  found: SearchOutcome,
): ToolResult {
  const { hits, totals, stats, stop } = found;
  const regex = compilePattern(input.pattern, input.caseSensitive);
  const shownPattern = `/${regex.source}/${regex.flags.replace('u', '')}`;
  const shown = fitLines(hits.map((hit) => `${showPath(hit.shown)}:${hit.line}: ${hit.text}`));
  const more = totals.matches - shown.length;
  const atLeast = stop === null ? '' : 'at least ';
  const counts =
    totals.matches === 0
      ? `no matches${stop === null ? '' : ' so far'}`
      : `${atLeast}${counted(totals.matches, 'matching line')} in ` +
        counted(totals.matchedFiles, 'file');
  const glob = input.glob === undefined ? '' : ` (glob ${JSON.stringify(input.glob)})`;
  const lines = [
    `search_files ${shownPattern} in ${scope.where}${glob}: ${counts}; ` +
      `${counted(totals.searched, 'file')} searched (${formatBytes(totals.bytes)}) in ${found.elapsedMs} ms`,
    ...shown,
  ];
  if (more > 0) {
    lines.push(
      `more: ${atLeast}${counted(more, 'more matching line')} not shown; pass maxResults (up to ` +
        `${SEARCH_MAX_RESULTS}) or narrow path/glob`,
    );
  }
  const skipped = describeSkipped(stats, [
    [found.globSkipped, 'not matching the glob'],
    [totals.binary, 'binary'],
    [totals.large, `larger than ${formatBytes(SEARCH_MAX_FILE_BYTES)}`],
    [totals.unreadable, 'unreadable files'],
  ]);
  if (skipped !== null) lines.push(skipped);
  if (totals.longLines > 0) {
    lines.push(
      `long lines: ${totals.longLines} lines longer than ${SEARCH_MAX_LINE_CHARS} characters ` +
        `were matched in their first ${SEARCH_MAX_LINE_CHARS} only`,
    );
  }
  if (stop !== null) lines.push(stop);
  return {
    status: 'succeeded',
    summary:
      `searched ${counted(totals.searched, 'file')} for ${shownPattern}: ${counts}` +
      (stop === null ? '' : ' (incomplete)'),
    content: lines.join('\n'),
    data: {
      pattern: input.pattern,
      flags: regex.flags,
      path: scope.where,
      glob: input.glob ?? null,
      matches: totals.matches,
      matchedFiles: totals.matchedFiles,
      returned: shown.length,
      more,
      filesSearched: totals.searched,
      bytesSearched: totals.bytes,
      skipped: {
        ...stats.skipped,
        glob: found.globSkipped,
        binary: totals.binary,
        large: totals.large,
        unreadableFiles: totals.unreadable,
      },
      longLines: totals.longLines,
      incomplete: found.stopped,
      elapsedMs: found.elapsedMs,
    },
  };
}
