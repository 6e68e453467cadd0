/**
 * The budget of the app's first load: the gzipped JS a browser fetches to open it. The
 * build checks its own chunks (the entry and what it imports statically, before any
 * `import()`), bench/pwa.ts what headless Chromium really fetched while pairing and
 * listing the runs; either fails past the budget, naming the largest chunks.
 */
import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/** Gzipped bytes of JS the first load may fetch. */
export const FIRST_LOAD_BUDGET_BYTES = 55 * 1024;

/** One script of the first load, as the check weighs it. */
export interface SizedChunk {
  name: string;
  gzipBytes: number;
  /** Its modules and their bytes before minifying, when the build knows them. */
  modules?: { id: string; bytes: number }[];
}

export interface FirstLoadVerdict {
  totalBytes: number;
  over: boolean;
  /** One line under the budget; past it, what to do and the largest chunks. */
  message: string;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** `gzip -9` of a script's text, as the budget counts it. */
export const gzipBytes = (code: string | Uint8Array) => gzipSync(code, { level: 9 }).length;

/** Weighs `chunks` against `budgetBytes`. */
export function firstLoadVerdict(
  chunks: readonly SizedChunk[],
  budgetBytes = FIRST_LOAD_BUDGET_BYTES,
): FirstLoadVerdict {
  const totalBytes = chunks.reduce((total, chunk) => total + chunk.gzipBytes, 0);
  const summary = `first-load JS ${kb(totalBytes)} gzip in ${chunks.length} scripts`;
  if (totalBytes <= budgetBytes) {
    return { totalBytes, over: false, message: `${summary}, under the ${kb(budgetBytes)} budget` };
  }
  const largest = [...chunks].sort((a, b) => b.gzipBytes - a.gzipBytes).slice(0, 5);
  const lines = largest.flatMap((chunk) => [
    `  ${chunk.name}  ${kb(chunk.gzipBytes)} gzip`,
    ...[...(chunk.modules ?? [])]
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 5)
      .map((module) => `      ${module.id}  ${kb(module.bytes)} before minifying`),
  ]);
  const message = [
    `${summary}: ${kb(totalBytes - budgetBytes)} over the ${kb(budgetBytes)} budget.`,
    'Load what the first screen does not need with import(), as the screens do',
    '(remote/app/src/screens/lazy-screen.tsx). The largest scripts of the first load:',
    ...lines,
  ].join('\n');
  return { totalBytes, over: true, message };
}

/** What the budget needs of a built chunk (rolldown's output chunk has all of it). */
export interface BuiltChunk {
  fileName: string;
  code: string;
  isEntry: boolean;
  /** Chunks it imports statically: fetched with it. */
  imports: readonly string[];
  modules: Readonly<Record<string, { renderedLength: number }>>;
}

/** The entry chunks and every chunk they import statically, each once. */
export function firstLoadChunks(chunks: readonly BuiltChunk[]): BuiltChunk[] {
  const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  const found = new Map<string, BuiltChunk>();
  const visit = (chunk: BuiltChunk | undefined) => {
    if (chunk === undefined || found.has(chunk.fileName)) return;
    found.set(chunk.fileName, chunk);
    for (const name of chunk.imports) visit(byName.get(name));
  };
  for (const chunk of chunks) if (chunk.isEntry) visit(chunk);
  return [...found.values()];
}

/** Minified bytes of each module of `chunk` (its path from node_modules or the repo). */
function modulesOf(chunk: BuiltChunk): { id: string; bytes: number }[] {
  return Object.entries(chunk.modules).map(([id, module]) => ({
    id: id.replace(/^.*\/node_modules\//, '').replace(/^.*\/(remote|protocol|pairing)\//, '$1/'),
    bytes: module.renderedLength,
  }));
}

/** A vite plugin that fails the build when its first load is past `budgetBytes`. */
export function firstLoadBudget(budgetBytes = FIRST_LOAD_BUDGET_BYTES): Plugin {
  return {
    name: 'tether-first-load-budget',
    apply: 'build',
    writeBundle(_options, bundle) {
      const chunks = Object.values(bundle).flatMap((output) =>
        output.type === 'chunk' ? [output] : [],
      );
      const verdict = firstLoadVerdict(
        firstLoadChunks(chunks).map((chunk) => ({
          name: chunk.fileName,
          gzipBytes: gzipBytes(chunk.code),
          modules: modulesOf(chunk),
        })),
        budgetBytes,
      );
      if (verdict.over) this.error(verdict.message);
      this.info(verdict.message);
    },
  };
}
