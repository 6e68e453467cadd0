/**
 * The oracle of the allow-rule property tests, written from docs/policy.md ("Command
 * rules", "Rules added from the app"), not from the code, over the workspace fixture of
 * allow-rule-matcher.test.ts and added-rules.test.ts: `src/a.ts`, `docs/guide.md`, a
 * `.env`, `secretdir/.env.local`, links out of it, a nested and a bare repository.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Makes the fixture's workspace in `root` (beside an `outside` folder); returns its path. */
export async function makeRuleWorkspace(root: string): Promise<string> {
  const workspace = path.join(root, 'workspace');
  for (const folder of [
    'src',
    'docs',
    'secretdir',
    '.git/hooks',
    'repo/.git',
    'bare/objects',
    'bare/refs',
  ]) {
    await mkdir(path.join(workspace, folder), { recursive: true });
  }
  await mkdir(path.join(root, 'outside'));
  await writeFile(path.join(workspace, 'src', 'a.ts'), 'export {};\n');
  await writeFile(path.join(workspace, 'docs', 'guide.md'), '# guide\n');
  await writeFile(path.join(workspace, '.env'), 'TOKEN=secret\n');
  await writeFile(path.join(workspace, 'secretdir', '.env.local'), 'TOKEN=secret\n');
  await writeFile(path.join(workspace, 'bare', 'HEAD'), 'ref: refs/heads/main\n');
  await writeFile(path.join(root, 'outside', 'x'), 'x\n');
  await symlink('../outside', path.join(workspace, 'link-out'));
  await symlink('.env', path.join(workspace, 'link-env'));
  await symlink('src', path.join(workspace, 'link-src'));
  // A bare layout whose HEAD is a link, which git follows.
  for (const folder of ['bare-link/objects', 'bare-link/refs/heads']) {
    await mkdir(path.join(workspace, folder), { recursive: true });
  }
  await writeFile(path.join(workspace, 'bare-link', 'refs', 'heads', 'main'), '0'.repeat(40));
  await symlink('refs/heads/main', path.join(workspace, 'bare-link', 'HEAD'));
  return workspace;
}

/** Words a model might add, each with what the document says of it as an extra argument. */
export const WORDS: Readonly<Record<string, 'plain' | 'missing' | 'not-plain' | 'bad-path'>> = {
  src: 'plain',
  'src/a.ts': 'plain',
  docs: 'plain',
  'docs/guide.md': 'plain',
  main: 'missing',
  'missing-file': 'missing',
  'HEAD^!': 'missing',
  '4b825dc642cb6eb9a060e54bf8d69288fbee4904': 'missing',
  'src/../docs': 'plain',
  'link-src': 'plain',
  '.gitignore': 'plain',
  '.env': 'bad-path',
  '.ENV': 'bad-path',
  'secretdir/.env.local': 'bad-path',
  secretdir: 'bad-path',
  '.': 'bad-path',
  '..': 'bad-path',
  '../outside': 'bad-path',
  '/etc/hosts': 'bad-path',
  'link-out': 'bad-path',
  'link-out/x': 'bad-path',
  'link-env': 'bad-path',
  '.git': 'bad-path',
  '.git/hooks': 'bad-path',
  'src/../../outside': 'bad-path',
  '-s': 'not-plain',
  '--short': 'not-plain',
  '--output=x': 'not-plain',
  '-C': 'not-plain',
  '--': 'not-plain',
  '+x': 'not-plain',
  '--no-index': 'not-plain',
  '--exec=sh': 'not-plain',
  'a=b': 'not-plain',
  'CC=evil': 'not-plain',
  'HEAD:.env': 'not-plain',
  'host:path': 'not-plain',
};

export const PROGRAMS = [
  ['git', 'diff'],
  ['git', 'log'],
  ['git', 'status'],
  ['cat'],
  ['ls'],
  ['find'],
];

/** What docs/policy.md says of `argv` under `rules` (config rules, in the fixture's workspace). */
export function documented(
  argv: readonly string[],
  rules: readonly (readonly string[])[],
): 'allow' | 'ask' {
  for (const rule of rules) {
    const open = rule[rule.length - 1] === '…';
    const fixed = open ? rule.slice(0, -1) : rule;
    if (argv.length < fixed.length || fixed.some((word, i) => argv[i] !== word)) continue;
    const extra = argv.slice(fixed.length);
    if (!open && extra.length > 0) continue;
    // A word naming no file passes, but for git, which reads it as a revision.
    const passes = (word: string) =>
      WORDS[word] === 'plain' || (WORDS[word] === 'missing' && argv[0] !== 'git');
    if (extra.every(passes)) return 'allow';
  }
  return 'ask';
}

/** A small seeded generator (mulberry32), so a failure names a case that comes back. */
export function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
