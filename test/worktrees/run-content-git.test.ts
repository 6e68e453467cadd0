/**
 * What the files a run left in its worktree cannot make the host's own git do, against
 * real repositories: run a filter program the user's git config defines, be taken for the
 * repository by a rewritten `.git`, show one file's diff under another's name, have a
 * conflicting file named in git's quoted form, or keep its worktree from being removed.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  changedFiles,
  checkWorktreeSource,
  commitWorktree,
  createWorktree,
  mergeIntoCheckout,
  removeWorktree,
  worktreeDiffs,
} from '../../host/worktrees/index.js';
import type { Worktree } from '../../host/worktrees/types.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

const AUTHOR = { name: 'Tether run run_test', email: 'tether@localhost' };

function gitIn(folder: string, ...args: string[]): string {
  return execFileSync('git', ['-C', folder, ...args], { encoding: 'utf8' }).trim();
}

let dir: TempDir;
let home: string | undefined;
beforeEach(() => {
  dir = tempDir('tether-run-content-');
  home = process.env['HOME'];
  // The user's own global git config, as git finds it for the host.
  process.env['HOME'] = path.join(dir.path, 'home');
  mkdirSync(path.join(dir.path, 'home'));
});
afterEach(() => {
  if (home === undefined) delete process.env['HOME'];
  else process.env['HOME'] = home;
  dir.remove();
});

/** A repository `name` with `files` committed on `main`, and a worktree of it not made yet. */
function setUp(
  files: Record<string, string>,
  name = 'repo',
): { repository: string; worktree: Worktree } {
  const repository = path.join(dir.path, name);
  mkdirSync(repository);
  gitIn(repository, 'init', '--quiet', '--initial-branch=main');
  gitIn(repository, 'config', 'user.email', 'user@example.com');
  gitIn(repository, 'config', 'user.name', 'User');
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(path.join(repository, name), text);
  }
  gitIn(repository, 'add', '.');
  gitIn(repository, 'commit', '--quiet', '-m', 'first');
  const checked = checkWorktreeSource(repository, undefined);
  if (!checked.ok) throw new Error(checked.reason);
  const worktree = {
    ...checked.source,
    path: path.join(dir.path, 'data', 'worktrees', `ses_${name}`),
    branch: 'tether/abc12345',
  };
  return { repository, worktree };
}

/** A program that notes it ran in `ran-<name>` and passes its input through. */
function notingProgram(name: string): string {
  const program = path.join(dir.path, `${name}.sh`);
  writeFileSync(program, `#!/bin/sh\ntouch '${dir.path}/ran-${name}'\ncat\n`, { mode: 0o755 });
  return program;
}

function programsRan(): string[] {
  return readdirSync(dir.path).filter((name) => name.startsWith('ran-'));
}

describe("a run's files given to the host's git", () => {
  it("run no filter program of the user's git config, whatever .gitattributes names", async () => {
    const { repository, worktree } = setUp({ 'README.md': 'hello\n' });
    writeFileSync(
      path.join(dir.path, 'home', '.gitconfig'),
      [
        '[filter "x"]',
        `\tclean = ${notingProgram('clean')}`,
        `\tsmudge = ${notingProgram('smudge')}`,
        '[filter "lfs"]',
        `\tprocess = ${notingProgram('process')}`,
        '\trequired = true',
        '',
      ].join('\n'),
    );
    gitIn(repository, 'config', 'filter.local.clean', notingProgram('local'));
    const gitDir = await createWorktree(worktree);
    // What the run writes: attributes naming every driver, and files they would cover.
    writeFileSync(
      path.join(worktree.path, '.gitattributes'),
      '*.md filter=x\n*.bin filter=lfs\n*.txt filter=local\n',
    );
    writeFileSync(path.join(worktree.path, 'README.md'), 'changed by the run\n');
    writeFileSync(path.join(worktree.path, 'data.bin'), 'large\n');
    writeFileSync(path.join(worktree.path, 'notes.txt'), 'notes\n');

    const commit = await commitWorktree({ ...worktree, gitDir }, AUTHOR, 'task');
    expect(gitIn(repository, 'cat-file', 'blob', `${commit.head}:README.md`)).toBe(
      'changed by the run',
    );
    await changedFiles(repository, worktree.base, commit.head);
    await worktreeDiffs(repository, worktree.base, commit.head);
    // The worktree made again from the run's branch checks its files out.
    await removeWorktree(worktree, false);
    await createWorktree(worktree);
    expect(await mergeIntoCheckout(repository, commit.head, 'merge')).toMatchObject({
      kind: 'merged',
      how: 'fast_forward',
    });
    expect(readFileSync(path.join(repository, 'README.md'), 'utf8')).toBe('changed by the run\n');
    expect(programsRan()).toEqual([]);
  });

  it("are committed in the repository the host names, whatever the worktree's .git says", async () => {
    for (const rewrite of ['file', 'folder'] as const) {
      const { repository, worktree } = setUp({ 'README.md': 'hello\n' }, rewrite);
      const gitDir = await createWorktree(worktree);
      // A repository the run made in its worktree, named by its `.git` or in its place.
      const crafted = path.join(worktree.path, 'crafted');
      execFileSync('git', ['init', '--quiet', '--bare', crafted]);
      rmSync(path.join(worktree.path, '.git'), { recursive: true });
      if (rewrite === 'file') {
        writeFileSync(path.join(worktree.path, '.git'), `gitdir: ${crafted}\n`);
      } else {
        execFileSync('git', ['init', '--quiet', worktree.path]);
      }
      writeFileSync(path.join(worktree.path, 'README.md'), 'changed by the run\n');

      expect(await createWorktree(worktree)).toBe(gitDir);
      const commit = await commitWorktree({ ...worktree, gitDir }, AUTHOR, 'task');
      expect(gitIn(repository, 'rev-parse', worktree.branch)).toBe(commit.head);
      expect(readdirSync(path.join(crafted, 'refs', 'heads'))).toEqual([]);
    }
  });

  it("show each file's own diff when one became a symlink, never what it points to", async () => {
    const { repository, worktree } = setUp({ a: 'a\n', b: 'b\n', c: 'c\n' });
    const gitDir = await createWorktree(worktree);
    rmSync(path.join(worktree.path, 'a'));
    symlinkSync('/etc/passwd', path.join(worktree.path, 'a'));
    writeFileSync(path.join(worktree.path, 'b'), 'B\n');
    writeFileSync(path.join(worktree.path, 'c'), 'C\n');
    const commit = await commitWorktree({ ...worktree, gitDir }, AUTHOR, 'task');

    const { files } = await changedFiles(repository, worktree.base, commit.head);
    const diffs = await worktreeDiffs(repository, worktree.base, commit.head);
    expect(files.map((file) => file.path)).toEqual(['a', 'b', 'c']);
    expect(diffs).toHaveLength(3);
    expect(diffs[0]).toContain('new file mode 120000');
    expect(diffs[0]).toContain('+/etc/passwd');
    expect(diffs[0]).not.toContain('root:');
    expect(diffs[1]).toMatch(/^diff --git a\/b b\/b\n[\s\S]*\+B$/m);
    expect(diffs[2]).toMatch(/^diff --git a\/c b\/c\n[\s\S]*\+C$/m);
  });

  it('are read for review up to a bound, the files past it without their diff', async () => {
    const { repository, worktree } = setUp({ 'a.txt': 'a\n', 'big.txt': '', 'c.txt': 'c\n' });
    const gitDir = await createWorktree(worktree);
    writeFileSync(path.join(worktree.path, 'a.txt'), 'A\n');
    writeFileSync(path.join(worktree.path, 'big.txt'), `${'x'.repeat(99)}\n`.repeat(100_000));
    writeFileSync(path.join(worktree.path, 'c.txt'), 'C\n');
    const commit = await commitWorktree({ ...worktree, gitDir }, AUTHOR, 'task');

    const diffs = await worktreeDiffs(repository, worktree.base, commit.head);
    expect(diffs).toHaveLength(1);
    expect(diffs[0]).toMatch(/^diff --git a\/a.txt b\/a.txt\n[\s\S]*\+A\n$/);
  });

  it('name the files a merge would conflict in as they are, not quoted', async () => {
    const names = ['new\nline.txt', 'été.txt'];
    const { repository, worktree } = setUp(Object.fromEntries(names.map((n) => [n, 'base\n'])));
    const gitDir = await createWorktree(worktree);
    for (const name of names) writeFileSync(path.join(worktree.path, name), 'run\n');
    const commit = await commitWorktree({ ...worktree, gitDir }, AUTHOR, 'task');
    for (const name of names) writeFileSync(path.join(repository, name), 'user\n');
    gitIn(repository, 'commit', '--quiet', '-am', 'user');

    const outcome = await mergeIntoCheckout(repository, commit.head, 'merge');
    expect(outcome).toEqual({ kind: 'conflict', into: 'main', files: names });
  });

  it('are removed with their worktree, even a folder the run made unreadable or nested past what a path can name', () => {
    // File modes bind only a user who is not root: as root the scenario runs as nobody.
    // It uses the built host (npm run build): a child process cannot load the sources. What
    // it loads is copied beside the scenario (the worktrees and sandbox folders, and zod,
    // their one package), because nobody may not be able to reach this checkout (CI's
    // Node 24 clone is in a 0700 folder).
    const scenario = path.join(dir.path, 'scenario.mjs');
    const copy = (from: string, to: string) =>
      cpSync(fileURLToPath(new URL(`../../${from}`, import.meta.url)), path.join(dir.path, to), {
        recursive: true,
      });
    copy('dist/host/worktrees', 'host/worktrees');
    copy('dist/host/sandbox', 'host/sandbox');
    copy('node_modules/zod', 'node_modules/zod');
    const built = path.join(dir.path, 'host', 'worktrees', 'index.js');
    writeFileSync(
      scenario,
      `
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkWorktreeSource, createWorktree, removeWorktree } from '${built}';
const root = process.argv[2];
const repository = path.join(root, 'repo');
const git = (...args) => execFileSync('git', ['-C', repository, ...args], { encoding: 'utf8' });
mkdirSync(repository);
git('init', '--quiet', '--initial-branch=main');
writeFileSync(path.join(repository, 'README.md'), 'hello\\n');
git('add', '.');
git('-c', 'user.name=U', '-c', 'user.email=u@x', 'commit', '--quiet', '-m', 'first');
const checked = checkWorktreeSource(repository, undefined);
const worktree = { ...checked.source, path: path.join(root, 'data', 'ses_1'), branch: 'tether/x' };
await createWorktree(worktree);
// What the run leaves: a folder with files in it, then no permission on it at all.
mkdirSync(path.join(worktree.path, 'locked', 'inner'), { recursive: true });
writeFileSync(path.join(worktree.path, 'locked', 'inner', 'file'), 'x');
chmodSync(path.join(worktree.path, 'locked', 'inner'), 0o000);
chmodSync(path.join(worktree.path, 'locked'), 0o000);
// And folders nested deeper than a path can name, made one level at a time.
const start = process.cwd();
process.chdir(worktree.path);
for (let i = 0; i < 1200; i++) {
  mkdirSync('nested-folder');
  process.chdir('nested-folder');
}
process.chdir(start);
let error = null;
await removeWorktree(worktree, true).catch((e) => { error = String(e); });
const branch = git('branch', '--list', worktree.branch).trim();
console.log(JSON.stringify({ error, folder: existsSync(worktree.path), branch }));
`,
    );
    const root = path.join(dir.path, 'scenario');
    mkdirSync(root);
    const asRoot = process.getuid?.() === 0;
    if (asRoot) execFileSync('chown', ['-R', 'nobody', dir.path]);
    const node = [process.execPath, scenario, root];
    const output = execFileSync(
      asRoot ? 'setpriv' : node[0]!,
      asRoot ? ['--reuid=nobody', '--regid=nogroup', '--clear-groups', ...node] : node.slice(1),
      { encoding: 'utf8', cwd: root, env: { ...process.env, HOME: root } },
    );
    expect(JSON.parse(output)).toEqual({ error: null, folder: false, branch: '' });
  });
});
