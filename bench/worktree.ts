/**
 * What a run's own worktree costs (docs/worktrees.md, docs/performance.md "A run's
 * worktree"), on a generated mid-size repository (5,000 files in 250 folders, ~76 MB of
 * text, one commit), through host/worktrees as the host calls it:
 * - `create`: `git worktree add` of a new branch (the files checked out), medians of rounds,
 *   beside a plain `cp -r` of the same tracked files as a floor;
 * - `disk`: what one worktree adds on disk (its files; git's objects are shared);
 * - `commit`: a run's end committing 20 changed files (private index, write-tree,
 *   commit-tree, update-ref), and one that changed nothing;
 * - `review`: `run.review`'s work: the changed files and their diff against the base;
 * - `merge` and `remove`: the fast-forward into the checkout, and removing the worktree.
 *
 *   npm run bench:worktree   (or node dist/bench/worktree.js)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  changedFiles,
  checkWorktreeSource,
  commitWorktree,
  createWorktree,
  mergeIntoCheckout,
  removeWorktree,
  worktreeDiffs,
} from '../host/worktrees/index.js';
import type { Worktree } from '../host/worktrees/types.js';

const FILES = 5_000;
const FILES_PER_FOLDER = 20;
const LINES_PER_FILE = 200;
const ROUNDS = 7;
const CHANGED = 20;
const AUTHOR = { name: 'Tether run bench', email: 'tether@localhost' };

function git(folder: string, ...args: string[]): string {
  return execFileSync('git', ['-C', folder, ...args], { encoding: 'utf8' }).trim();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

async function timed<T>(work: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const value = await work();
  return [performance.now() - start, value];
}

function duBytes(folder: string): number {
  const out = spawnSync('du', ['-sb', folder], { encoding: 'utf8' }).stdout;
  return Number(out.split('\t')[0]);
}

const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-worktree-')));
const repository = join(root, 'repo');
mkdirSync(repository);
git(repository, 'init', '--quiet', '--initial-branch=main');
git(repository, 'config', 'user.email', 'bench@example.com');
git(repository, 'config', 'user.name', 'Bench');
const line = 'const value = computeSomething(input, options); // a line of ordinary code\n';
for (let i = 0; i < FILES; i++) {
  const folder = join(repository, `src${Math.floor(i / FILES_PER_FOLDER)}`);
  if (i % FILES_PER_FOLDER === 0) mkdirSync(folder);
  writeFileSync(join(folder, `file${i}.ts`), `// file ${i}\n` + line.repeat(LINES_PER_FILE));
}
git(repository, 'add', '.');
git(repository, 'commit', '--quiet', '-m', 'generated');
const checked = checkWorktreeSource(repository, undefined);
if (!checked.ok) throw new Error(checked.reason);
const source = checked.source;
console.log(
  `repository: ${FILES} files, ${(duBytes(repository) / 1e6).toFixed(1)} MB with its .git (git ${git(repository, 'version').replace('git version ', '')})`,
);

const creates: number[] = [];
const copies: number[] = [];
const commits: number[] = [];
const unchanged: number[] = [];
const reviews: number[] = [];
const removes: number[] = [];
let disk = 0;
for (let round = 0; round < ROUNDS; round++) {
  const worktree: Worktree = {
    ...source,
    path: join(root, 'worktrees', `ses_${round}`),
    branch: `tether/bench${round}`,
  };
  const [create, gitDir] = await timed(() => createWorktree(worktree));
  creates.push(create);
  const copyTarget = join(root, `copy-${round}`);
  const copyStart = performance.now();
  execFileSync('sh', [
    '-c',
    `cd '${repository}' && git ls-files -z | tar --null -cf - -T - | (mkdir -p '${copyTarget}-all' && cd '${copyTarget}-all' && tar -xf -)`,
  ]);
  copies.push(performance.now() - copyStart);
  disk = duBytes(worktree.path);
  for (let i = 0; i < CHANGED; i++) {
    const folder = join(worktree.path, `src${i * 7}`);
    writeFileSync(join(folder, `file${i * 7 * FILES_PER_FOLDER}.ts`), `// changed ${round}\n`);
  }
  const open = { ...worktree, gitDir };
  const [commit, result] = await timed(() => commitWorktree(open, AUTHOR, 'bench'));
  commits.push(commit);
  const [same] = await timed(() => commitWorktree(open, AUTHOR, 'bench'));
  unchanged.push(same);
  const [review] = await timed(async () => {
    await changedFiles(repository, source.base, result.head);
    await worktreeDiffs(repository, source.base, result.head);
  });
  reviews.push(review);
  if (round === ROUNDS - 1) {
    const [merge, outcome] = await timed(() =>
      mergeIntoCheckout(repository, result.head, 'Merge tether/bench'),
    );
    console.log(
      `merge into the checkout (${outcome.kind === 'merged' ? outcome.how : outcome.kind}): ${ms(merge)}`,
    );
  }
  const [remove] = await timed(() => removeWorktree(worktree, true));
  removes.push(remove);
  rmSync(`${copyTarget}-all`, { recursive: true, force: true });
}
console.log(`create a worktree (git worktree add -b): median ${ms(median(creates))} of ${ROUNDS}`);
console.log(`  floor, the tracked files copied by tar: median ${ms(median(copies))}`);
console.log(`disk of one worktree: ${(disk / 1e6).toFixed(1)} MB (git objects shared)`);
console.log(`commit at a run's end, ${CHANGED} files changed: median ${ms(median(commits))}`);
console.log(`commit at a run's end, nothing changed: median ${ms(median(unchanged))}`);
console.log(`review (changed files and diffs): median ${ms(median(reviews))}`);
console.log(`remove a worktree and its branch: median ${ms(median(removes))}`);
rmSync(root, { recursive: true, force: true });
