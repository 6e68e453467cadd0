/**
 * `tether remote submit --worktree` and `tether remote review` (issue 25) as child
 * processes against the real host process, the scripted model and a real git repository:
 * the run works on its own branch, the review shows its diff, refuses to answer without a
 * terminal or --yes, merges with --merge --yes (the checkout's file changes), and says
 * which files conflict when a merge is refused.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostProcess } from '../support/host-process.js';
import { startModelHost, type ModelHost } from '../support/model-host.js';
import {
  textTurn,
  toolCallTurn,
  type ScriptedModelServer,
} from '../support/scripted-model-server.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { runTether } from './run-cli.js';

let served: ModelHost;
let host: HostProcess;
let model: ScriptedModelServer;
let homeDir: TempDir;
let state: string;

const remote = (command: string, ...args: string[]) =>
  runTether(['remote', command, '--state', state, ...args], homeDir.path);

function gitIn(folder: string, ...args: string[]): string {
  return execFileSync('git', ['-C', folder, ...args], { encoding: 'utf8' }).trim();
}

/** Scripts a run that rewrites the workspace's notes.txt from `before` to `after`. */
function pushWrite(before: string, after: string): void {
  const expectedSha256 = createHash('sha256').update(before).digest('hex');
  model.push(
    toolCallTurn([
      {
        id: `call_${randomUUID()}`,
        name: 'write_file',
        arguments: JSON.stringify({ path: 'notes.txt', content: after, expectedSha256 }),
      },
    ]),
    textTurn('Done.'),
  );
}

/** `submit --worktree --wait`, which must succeed; the run's id. */
async function submitWorktreeRun(task: string): Promise<string> {
  const submitted = await remote('submit', task, '--worktree', '--wait');
  expect(submitted.stderr).toBe('');
  expect(submitted.code).toBe(0);
  const runId = /^run (run_\S+) (?:queued|running) \(session ses_\S+\)$/m.exec(
    submitted.stdout,
  )?.[1];
  expect(runId).toBeDefined();
  expect(submitted.stdout).toContain(`review its branch: tether remote review ${runId}\n`);
  return runId!;
}

beforeAll(async () => {
  served = await startModelHost();
  ({ model, host } = served);
  homeDir = tempDir('tether-review-cli-', { realpath: false });
  state = join(homeDir.path, 'remote.json');
  const workspace = host.workspace;
  gitIn(workspace, 'init', '--quiet', '--initial-branch=main');
  gitIn(workspace, 'config', 'user.email', 'user@example.com');
  gitIn(workspace, 'config', 'user.name', 'User');
  writeFileSync(join(workspace, 'notes.txt'), 'one\ntwo\n');
  gitIn(workspace, 'add', '.');
  gitIn(workspace, 'commit', '--quiet', '-m', 'first');
  expect((await remote('pair', await host.pairLink(), '--name', 'Review test')).code).toBe(0);
});

afterAll(async () => {
  await served?.dispose();
  homeDir.remove();
});

describe('tether remote review', { timeout: 60_000 }, () => {
  it('submit --base without --worktree is a usage error', async () => {
    const result = await remote('submit', 'task', '--base', 'main');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--base is for a run in its own worktree: add --worktree');
  });

  it('shows the branch and its diff, answers nothing without a terminal, merges with --merge --yes', async () => {
    const notes = join(host.workspace, 'notes.txt');
    pushWrite('one\ntwo\n', 'one\nTWO\n');
    const runId = await submitWorktreeRun('Shout the second line');
    // The run worked on its own branch: the checkout is untouched.
    expect(readFileSync(notes, 'utf8')).toBe('one\ntwo\n');
    const branch = gitIn(
      host.workspace,
      'branch',
      '--list',
      '--format=%(refname:short)',
      'tether/*',
    );
    expect(branch).toMatch(/^tether\/\S+$/);

    const shown = await remote('review', runId);
    expect(shown.code).toBe(1);
    expect(shown.stdout).toMatch(
      new RegExp(`^branch ${branch} from [0-9a-f]{12} \\(active\\)$`, 'm'),
    );
    expect(shown.stdout).toContain('\ninto main\n1 file(s) changed, +1 -1\n');
    expect(shown.stdout).toContain('\nmodified notes.txt +1 -1\n');
    expect(shown.stdout).toMatch(/^ {4}-two$/m);
    expect(shown.stdout).toMatch(/^ {4}\+TWO$/m);
    expect(shown.stderr).toContain(
      'not answered: stdin is not a terminal, so nobody can confirm; read the review above and pass --merge --yes',
    );
    expect(readFileSync(notes, 'utf8')).toBe('one\ntwo\n');

    const merged = await remote('review', runId, '--merge', '--yes');
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(0);
    expect(merged.stdout).toMatch(
      new RegExp(`^Merged ${branch} into main: fast-forward to [0-9a-f]{12}\\.$`, 'm'),
    );
    expect(readFileSync(notes, 'utf8')).toBe('one\nTWO\n');

    const again = await remote('review', runId, '--discard', '--yes');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('this worktree was already merged: nothing to answer');
  });

  it('says which files conflict when a merge is refused, and changes nothing', async () => {
    const notes = join(host.workspace, 'notes.txt');
    pushWrite('one\nTWO\n', 'one\nTWO by the run\n');
    const runId = await submitWorktreeRun('Sign the second line');
    writeFileSync(notes, 'one\nTWO by the user\n');
    gitIn(host.workspace, 'commit', '--quiet', '-am', 'mine');
    const head = gitIn(host.workspace, 'rev-parse', 'HEAD');
    const branch = gitIn(
      host.workspace,
      'branch',
      '--list',
      '--format=%(refname:short)',
      'tether/*',
    );

    const refused = await remote('review', runId, '--merge', '--yes');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `tether remote review: not merged: ${branch} conflicts with main in notes.txt; ` +
        `nothing changed. The branch stays: merge it by hand, or tether remote review ${runId} --discard\n`,
    );
    expect(gitIn(host.workspace, 'rev-parse', 'HEAD')).toBe(head);
    expect(readFileSync(notes, 'utf8')).toBe('one\nTWO by the user\n');

    const discarded = await remote('review', runId, '--discard', '--yes');
    expect(discarded.code).toBe(0);
    expect(discarded.stdout).toContain(`Discarded ${branch} and its worktree.\n`);
    expect(gitIn(host.workspace, 'branch', '--list', branch)).toBe('');
  });
});
