// Every LIMIT or OFFSET the host binds is written `+?` (BOUND_LIMIT in host/store/database.ts):
// SQLite compiles a statement with a plain `LIMIT ?` again at every run, which made a one-row
// read of runs three times dearer on the commit path of every run.submit (issue 26).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const HOST = new URL('../../host', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('bound limits', () => {
  it('no statement of the host binds a LIMIT or OFFSET as a plain parameter', () => {
    const plain = sourceFiles(HOST).flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          /\b(?:LIMIT|OFFSET)\s+\?(?!\?)/.test(line)
            ? [`${path}:${index + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(plain).toEqual([]);
  });
});
