/**
 * The first-load budget the app's build enforces (remote/app/scripts/first-load-budget.ts):
 * which chunks count (the entry and its static imports, not what `import()` loads later)
 * and the verdict that fails the build past the budget, naming the largest scripts.
 */
import { describe, expect, it } from 'vitest';
import {
  FIRST_LOAD_BUDGET_BYTES,
  firstLoadChunks,
  firstLoadVerdict,
  type BuiltChunk,
} from '../../remote/app/scripts/first-load-budget.js';

function chunk(fileName: string, imports: string[] = [], isEntry = false): BuiltChunk {
  return { fileName, code: '', isEntry, imports, modules: {} };
}

describe('the first-load budget', () => {
  it('is 55 KB of gzipped JS', () => {
    expect(FIRST_LOAD_BUDGET_BYTES).toBe(55 * 1024);
  });

  it('counts the entry and what it imports statically, through shared chunks, each once', () => {
    const chunks = [
      chunk('assets/run-screen.js', ['assets/use-submit.js']),
      chunk('assets/index.js', ['assets/runtime.js', 'assets/shared.js'], true),
      chunk('assets/shared.js', ['assets/runtime.js']),
      chunk('assets/runtime.js'),
      chunk('assets/use-submit.js'),
      chunk('assets/jsQR.js', ['assets/runtime.js']),
    ];
    expect(firstLoadChunks(chunks).map((found) => found.fileName)).toEqual([
      'assets/index.js',
      'assets/runtime.js',
      'assets/shared.js',
    ]);
  });

  it('passes at the budget exactly', () => {
    const verdict = firstLoadVerdict([
      { name: 'assets/index.js', gzipBytes: 50 * 1024 },
      { name: 'assets/runtime.js', gzipBytes: 5 * 1024 },
    ]);
    expect(verdict).toEqual({
      totalBytes: 55 * 1024,
      over: false,
      message: 'first-load JS 55.0 KB gzip in 2 scripts, under the 55.0 KB budget',
    });
  });

  it('fails one byte past it, listing the largest scripts and their largest modules', () => {
    const verdict = firstLoadVerdict(
      [
        { name: 'assets/runtime.js', gzipBytes: 1024 },
        {
          name: 'assets/index.js',
          gzipBytes: 9 * 1024 + 1,
          modules: [
            { id: 'preact/dist/preact.mjs', bytes: 14 * 1024 },
            { id: 'tweetnacl/nacl-fast.js', bytes: 60 * 1024 },
          ],
        },
      ],
      10 * 1024,
    );
    expect(verdict.over).toBe(true);
    expect(verdict.totalBytes).toBe(10 * 1024 + 1);
    expect(verdict.message.split('\n')).toEqual([
      'first-load JS 10.0 KB gzip in 2 scripts: 0.0 KB over the 10.0 KB budget.',
      'Load what the first screen does not need with import(), as the screens do',
      '(remote/app/src/screens/lazy-screen.tsx). The largest scripts of the first load:',
      '  assets/index.js  9.0 KB gzip',
      '      tweetnacl/nacl-fast.js  60.0 KB before minifying',
      '      preact/dist/preact.mjs  14.0 KB before minifying',
      '  assets/runtime.js  1.0 KB gzip',
    ]);
  });
});
