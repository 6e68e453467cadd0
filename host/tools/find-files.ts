/**
 * `find_files {glob, path?, maxResults?}`: the files below a folder whose path matches a
 * glob, sorted, walked like search_files walks (.gitignore honoured, noisy folders,
 * protected paths and symlinks skipped), bounded by a deadline and an entry cap.
 */
import { z } from 'zod';
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
import type { SearchToolOptions } from './search-scope.js';
import { failedResult, fileSystemFailure } from './tool-result.js';
import { defineTool } from './tool-input.js';
import type { ToolDefinition } from './types.js';
import { emptyWalkStats, walkFiles } from './workspace-walk.js';

/** Paths returned when the input has no `maxResults`. */
const FIND_FILES_DEFAULT_RESULTS = 200;
/** Most paths one call returns. */
const FIND_FILES_MAX_RESULTS = 2000;

const findFilesInput = z.strictObject({
  glob: globInput.describe(
    'Glob of the files to find: "*.ts" (no /) matches names anywhere below path; ' +
      '"src/**/*.test.ts" (with /) matches paths relative to path. * ? ** [abc] {a,b} work.',
  ),
  path: searchPathInput,
  maxResults: z
    .int()
    .min(1)
    .max(FIND_FILES_MAX_RESULTS)
    .optional()
    .describe(`Most paths to return (default ${FIND_FILES_DEFAULT_RESULTS}).`),
});

/** Validated input of `find_files`. */
export type FindFilesInput = z.infer<typeof findFilesInput>;

/** The `find_files` tool, skipping what `options.protectedPaths` protects. */
export function createFindFilesTool(options: SearchToolOptions): ToolDefinition<FindFilesInput> {
  const deadlineMs = options.deadlineMs ?? SEARCH_DEADLINE_MS;
  return defineTool<FindFilesInput>({
    name: 'find_files',
    description:
      `Find files in the workspace by glob, without reading them. Returns matching paths ` +
      `(relative to the workspace) sorted, up to maxResults (default ` +
      `${FIND_FILES_DEFAULT_RESULTS}, at most ${FIND_FILES_MAX_RESULTS}), with a count of the ` +
      `rest. Skips what .gitignore ignores, folders such as node_modules, .git and dist ` +
      `(name one as path to look inside), protected files and symlinks. It never needs ` +
      `approval: prefer it to find or ls -R through run_command, which asks every time.`,
    input: findFilesInput,
    access: (input) => ({ kind: 'read', path: input.path ?? '.' }),
    preview: (input, ctx) => previewSearch(input.path ?? '.', ctx),
    async execute(input, ctx) {
      const scope = await resolveSearchScope('find_files', input.path ?? '.', ctx, options);
      if (!('root' in scope)) return scope;
      const matches = globMatcher(input.glob);
      const stats = emptyWalkStats();
      const found: string[] = [];
      const started = performance.now();
      const walk = {
        ...scope,
        signal: ctx.signal,
        deadline: started + deadlineMs,
        maxEntries: SEARCH_MAX_ENTRIES,
      };
      try {
        for await (const file of walkFiles(walk, stats)) {
          if (matches(file.underRoot)) found.push(file.shown);
        }
      } catch (error) {
        if (ctx.signal.aborted) return failedResult('cancelled', 'find_files was cancelled');
        return fileSystemFailure(error, scope.where);
      }
      found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const max = input.maxResults ?? FIND_FILES_DEFAULT_RESULTS;
      const shown = fitLines(found.slice(0, max).map(showPath));
      const more = found.length - shown.length;
      const stop = describeWalkStop(stats, deadlineMs);
      const atLeast = stop === null ? '' : 'at least ';
      const header =
        `find_files ${JSON.stringify(input.glob)} in ${scope.where}: ${atLeast}` +
        `${found.length === 1 ? '1 file matches' : `${found.length} files match`} ` +
        `(${counted(stats.files, 'file')} in ${counted(stats.directories, 'folder')} looked at)`;
      const lines = [header, ...shown];
      if (more > 0) {
        lines.push(
          `more: ${counted(more, 'more file')} not shown; pass maxResults (up to ${FIND_FILES_MAX_RESULTS}) or narrow path/glob`,
        );
      }
      const skipped = describeSkipped(stats, []);
      if (skipped !== null) lines.push(skipped);
      if (stop !== null) lines.push(stop);
      return {
        status: 'succeeded',
        summary:
          `found ${atLeast}${counted(found.length, 'file')} matching ${input.glob} in ${scope.where}` +
          (stop === null ? '' : ' (incomplete)'),
        content: lines.join('\n'),
        data: {
          glob: input.glob,
          path: scope.where,
          matches: found.length,
          returned: shown.length,
          more,
          filesLookedAt: stats.files,
          folders: stats.directories,
          skipped: stats.skipped,
          incomplete: stats.stopped,
          elapsedMs: Math.round(performance.now() - started),
        },
      };
    },
  });
}
