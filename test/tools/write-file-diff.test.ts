import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { capDiff, PREVIEW_DIFF_MAX_BYTES, unifiedDiff } from '../../host/tools/testing.js';
import { tempDir } from '../support/temp-dir.js';

const diff = (before: string | null, after: string) =>
  unifiedDiff(before === null ? null : Buffer.from(before), Buffer.from(after), 'f.txt');
const lines = (...items: string[]) => items.map((item) => `${item}\n`).join('');

/** Splits text into lines that keep their `\n` (a last line may lack one). */
function splitKeep(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * A strict applier written for the test: every context and removed line must match the
 * old text at the hunk's position, and the hunk's counts must match its lines.
 */
function applyDiff(before: string, patch: string): string {
  if (patch === '') return before;
  const old = splitKeep(before);
  const out: string[] = [];
  const rows = splitKeep(patch);
  expect(rows[0]).toMatch(/^--- (a\/f\.txt|\/dev\/null)\n$/);
  expect(rows[1]).toBe('+++ b/f.txt\n');
  let cursor = 0;
  let i = 2;
  while (i < rows.length) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n$/.exec(rows[i] ?? '');
    if (header === null) throw new Error(`not a hunk header: ${rows[i]}`);
    const oldCount = header[2] === undefined ? 1 : Number(header[2]);
    const newCount = header[4] === undefined ? 1 : Number(header[4]);
    const oldStart = oldCount === 0 ? Number(header[1]) : Number(header[1]) - 1;
    expect(oldStart).toBeGreaterThanOrEqual(cursor);
    out.push(...old.slice(cursor, oldStart));
    cursor = oldStart;
    i += 1;
    let seenOld = 0;
    let seenNew = 0;
    while (i < rows.length && !(rows[i] ?? '').startsWith('@@')) {
      const row = rows[i] ?? '';
      const noNewline = rows[i + 1] === '\\ No newline at end of file\n';
      const text = noNewline ? row.slice(1, -1) : row.slice(1);
      if (row[0] === ' ' || row[0] === '-') {
        expect(old[cursor]).toBe(text);
        cursor += 1;
        seenOld += 1;
      }
      if (row[0] === ' ' || row[0] === '+') {
        out.push(text);
        seenNew += 1;
      }
      if (!' -+'.includes(row[0] ?? '')) throw new Error(`bad diff line: ${row}`);
      i += noNewline ? 2 : 1;
    }
    expect([seenOld, seenNew]).toEqual([oldCount, newCount]);
  }
  out.push(...old.slice(cursor));
  return out.join('');
}

/** Length of the longest common subsequence of lines: a minimal script removes the rest. */
function lcsLength(a: string[], b: string[]): number {
  let row = new Array<number>(b.length + 1).fill(0);
  for (const line of a) {
    const next = [0];
    for (let j = 0; j < b.length; j += 1) {
      next.push(line === b[j] ? (row[j] ?? 0) + 1 : Math.max(row[j + 1] ?? 0, next[j] ?? 0));
    }
    row = next;
  }
  return row[b.length] ?? 0;
}

/** A deterministic pseudo-random source (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('unifiedDiff output', () => {
  it('changes one line with three lines of context on each side', () => {
    const before = lines('1', '2', '3', '4', '5', '6', '7', '8', '9');
    const after = lines('1', '2', '3', '4', 'five', '6', '7', '8', '9');
    expect(diff(before, after)).toEqual({
      text: '--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n',
      added: 1,
      removed: 1,
      binary: false,
    });
  });

  it('shows a new file against /dev/null', () => {
    expect(diff(null, 'a\nb\n').text).toBe('--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n');
    expect(diff(null, '').text).toBe('--- /dev/null\n+++ b/f.txt\n');
  });

  it('empties a file with a +0,0 range and omits a count of one', () => {
    expect(diff('only\n', '').text).toBe('--- a/f.txt\n+++ b/f.txt\n@@ -1 +0,0 @@\n-only\n');
  });

  it('marks a last line without a newline, before and after', () => {
    expect(diff('a\nb', 'a\nb\n').text).toBe(
      '--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n',
    );
    expect(diff('a\n', 'a\nc').text).toBe(
      '--- a/f.txt\n+++ b/f.txt\n@@ -1 +1,2 @@\n a\n+c\n\\ No newline at end of file\n',
    );
  });

  it('splits changes more than six lines apart into two hunks and joins closer ones', () => {
    const base = Array.from({ length: 30 }, (_, i) => `${i + 1}`);
    const far = base.map((line) => (line === '3' || line === '20' ? `${line}!` : line));
    const farDiff = diff(lines(...base), lines(...far)).text;
    expect(farDiff.match(/^@@ .* @@$/gm)).toEqual(['@@ -1,6 +1,6 @@', '@@ -17,7 +17,7 @@']);
    const near = base.map((line) => (line === '3' || line === '10' ? `${line}!` : line));
    expect(diff(lines(...base), lines(...near)).text.match(/^@@ .* @@$/gm)).toEqual([
      '@@ -1,13 +1,13 @@',
    ]);
  });

  it('is empty when nothing changed, and says only "differ" for binary content', () => {
    expect(diff('same\n', 'same\n')).toEqual({ text: '', added: 0, removed: 0, binary: false });
    const binary = unifiedDiff(Buffer.from('text\n'), Buffer.from([0, 1, 2]), 'f.txt');
    expect(binary).toMatchObject({
      text: 'Binary files a/f.txt and b/f.txt differ\n',
      binary: true,
    });
  });
});

describe('unifiedDiff correctness', () => {
  it('gives a minimal script that turns the old text into the new, on random cases', () => {
    const next = random(42);
    for (let round = 0; round < 400; round += 1) {
      const pick = () =>
        Array.from(
          { length: Math.floor(next() * 30) },
          () => 'abcde'[Math.floor(next() * 5)] ?? 'a',
        );
      const a = pick();
      const b = pick();
      const before = a.join('\n') + (next() < 0.5 ? '\n' : '');
      const after = b.join('\n') + (next() < 0.5 ? '\n' : '');
      const result = diff(before, after);
      expect(applyDiff(before, result.text)).toBe(after);
      const oldLines = splitKeep(before);
      const newLines = splitKeep(after);
      const common = lcsLength(oldLines, newLines);
      expect(result.removed).toBe(oldLines.length - common);
      expect(result.added).toBe(newLines.length - common);
    }
  });

  it('is accepted by patch(1), missing last newlines included', async () => {
    await using temp = tempDir('tether-diff-', { realpath: false });
    const dir = temp.path;
    const before = lines('alpha', 'beta', 'gamma', 'delta') + 'no newline';
    const after = lines('alpha', 'BETA', 'gamma', 'delta', 'no newline') + 'epsilon';
    await writeFile(path.join(dir, 'f.txt'), before);
    await writeFile(path.join(dir, 'change.diff'), diff(before, after).text);
    await promisify(execFile)('patch', ['-p1', '-i', 'change.diff'], { cwd: dir });
    expect(await readFile(path.join(dir, 'f.txt'), 'utf8')).toBe(after);
  });

  it('replaces the changed middle in one hunk when a minimal script is too costly', () => {
    const count = 10_000;
    const before = lines('head', ...Array.from({ length: count }, (_, i) => `old ${i}`), 'tail');
    const after = lines('head', ...Array.from({ length: count }, (_, i) => `new ${i}`), 'tail');
    const started = performance.now();
    const result = diff(before, after);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.text.match(/^@@ .* @@$/gm)).toEqual([`@@ -1,${count + 2} +1,${count + 2} @@`]);
    expect(result).toMatchObject({ added: count, removed: count });
    expect(applyDiff(before, result.text)).toBe(after);
  });
});

describe('capDiff', () => {
  it('leaves a diff under the cap alone', () => {
    expect(capDiff('--- a\n+++ b\n', 100)).toBe('--- a\n+++ b\n');
  });

  it('cuts at a line boundary within the cap and says so in a last line', () => {
    const big = diff(null, lines(...Array.from({ length: 40_000 }, (_, i) => `line ${i} é`))).text;
    expect(Buffer.byteLength(big)).toBeGreaterThan(PREVIEW_DIFF_MAX_BYTES);
    const capped = capDiff(big, PREVIEW_DIFF_MAX_BYTES);
    expect(Buffer.byteLength(capped)).toBeLessThanOrEqual(PREVIEW_DIFF_MAX_BYTES);
    const rows = capped.split('\n');
    expect(rows.pop()).toBe('');
    const note = rows.pop() ?? '';
    expect(note).toMatch(/^\[diff cut at 200\.0 KiB: \d+ of 40003 lines shown; /);
    expect(big.startsWith(`${rows.join('\n')}\n`)).toBe(true);
    expect(note).toContain(`${rows.length} of 40003`);
  });
});
