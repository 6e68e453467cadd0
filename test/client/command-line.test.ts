/**
 * `commandLine` (remote/client): an allow rule's words as the command line they match, the
 * way a shell would read them back (issue 24: rules showed as `["wc","-l","README.md"]`).
 * Each line is checked by a real shell: `sh` splits it back into the same words.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandLine } from '../../remote/client/index.js';

/** The words `sh` reads from `line` (printf prints each argument on its own NUL). */
function wordsOf(line: string): string[] {
  const result = spawnSync('sh', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  expect(result.status).toBe(0);
  return result.stdout.split('\0').slice(0, -1);
}

describe('commandLine', () => {
  it('leaves plain words and paths as they are', () => {
    expect(commandLine(['wc', '-l', 'README.md'])).toBe('wc -l README.md');
    expect(commandLine(['git', 'log', '--oneline', '-n', '5'])).toBe('git log --oneline -n 5');
    expect(commandLine(['cat', '/Users/me/src/app/a.txt', 'b/c~1', 'x=1,y:2'])).toBe(
      'cat /Users/me/src/app/a.txt b/c~1 x=1,y:2',
    );
  });

  it('quotes only the words a shell would read otherwise', () => {
    const cases: [string[], string][] = [
      [['cat', 'My Notes.md'], "cat 'My Notes.md'"],
      [['echo', "it's"], "echo 'it'\\''s'"],
      [['grep', '-r', 'a|b', '*.ts'], "grep -r 'a|b' '*.ts'"],
      [['echo', ''], "echo ''"],
      [['ls', '~'], "ls '~'"],
      [
        ['echo', '$HOME', '`id`', 'a;b', 'x&', '(y)', '#c'],
        "echo '$HOME' '`id`' 'a;b' 'x&' '(y)' '#c'",
      ],
      [['printf', 'two\nlines'], "printf 'two\nlines'"],
      [['echo', 'naïve'], "echo 'naïve'"],
    ];
    for (const [words, line] of cases) {
      expect(commandLine(words)).toBe(line);
      expect(wordsOf(commandLine(words))).toEqual(words);
    }
  });
});
