/**
 * Runs in their own worktree through the real host process (issue 25): two runs on one
 * repository write the same file differently, unasked, and neither touches the user's
 * checkout; one merges by fast-forward, the other conflicts and changes nothing, then is
 * discarded without a trace; an answer bound to an old tree is refused; a host killed
 * right after the final commit leaves one commit, recorded at the next start.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkWorktrees } from '../../host/cli/doctor-worktrees.js';
import { startFaultHost, type FaultHost } from '../support/fault-host.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { until } from '../support/wait.js';

function gitIn(folder: string, ...args: string[]): string {
  return execFileSync('git', ['-C', folder, ...args], { encoding: 'utf8' }).trim();
}

/** The host's workspace as a repository with one commit on `main`. */
function makeRepository(host: FaultHost): string {
  const workspace = host.host.workspace;
  gitIn(workspace, 'init', '--quiet', '--initial-branch=main');
  gitIn(workspace, 'config', 'user.email', 'user@example.com');
  gitIn(workspace, 'config', 'user.name', 'User');
  writeFileSync(join(workspace, 'notes.txt'), 'one\ntwo\n');
  gitIn(workspace, 'add', '.');
  gitIn(workspace, 'commit', '--quiet', '-m', 'first');
  return workspace;
}

const RunResult = z.object({
  branch: z.string(),
  head: z.string(),
  treeDigest: z.string(),
  committed: z.boolean(),
  files: z.array(z.object({ path: z.string(), status: z.string() })),
});

/** The run's `run.result` payload, once recorded. */
function resultOf(host: FaultHost, runId: string): Promise<z.infer<typeof RunResult>> {
  return until(`run.result of ${runId}`, () => {
    const event = host.events().find((e) => e.type === 'run.result' && e.runId === runId);
    return event === undefined ? undefined : RunResult.parse(event.payload);
  });
}

function waitForIdle(host: FaultHost, runId: string): Promise<true> {
  return until(`session.idle of ${runId}`, () =>
    host.typesOf(runId).includes('session.idle') ? true : undefined,
  );
}

/**
 * Submits a worktree run whose model writes `notes.txt` with `text`, runs two commands in
 * the worktree (git reads its history there; a file made by a command), then ends.
 */
async function writeRun(
  host: FaultHost,
  text: string,
  sessionId?: string,
  before = 'one\ntwo\n',
): Promise<{ runId: string; sessionId: string }> {
  const expectedSha256 = createHash('sha256').update(before).digest('hex');
  host.model.push(
    toolCallTurn([
      {
        id: `call_${randomUUID()}`,
        name: 'write_file',
        arguments: JSON.stringify({ path: 'notes.txt', content: text, expectedSha256 }),
      },
      {
        id: `call_${randomUUID()}`,
        name: 'run_command',
        arguments: JSON.stringify({ command: 'git log --format=%s' }),
      },
      {
        id: `call_${randomUUID()}`,
        name: 'run_command',
        arguments: JSON.stringify({ command: `touch made-${text.trim().replace(/\W/g, '')}.txt` }),
      },
    ]),
    textTurn('Done.'),
  );
  const result = await host.channel.call('run.submit', {
    commandId: randomUUID(),
    input: { text: `write ${text}` },
    ...(sessionId === undefined ? { isolation: 'worktree' } : { sessionId }),
  });
  return { runId: String(result['runId']), sessionId: String(result['sessionId']) };
}

function worktreeFolder(host: FaultHost, sessionId: string): string {
  return join(host.host.dataDir, 'worktrees', sessionId);
}

function integrate(
  host: FaultHost,
  runId: string,
  action: 'merge' | 'keep' | 'discard',
  treeDigest: string,
  commandId = randomUUID(),
): Promise<Record<string, unknown>> {
  return host.channel.call('run.integrate', { commandId, runId, action, treeDigest });
}

describe('a run in its own worktree', { timeout: 120_000 }, () => {
  it('works unasked, leaves the checkout alone, merges one run and refuses the conflicting one', async () => {
    await using host = await startFaultHost();
    const repository = makeRepository(host);
    const headBefore = gitIn(repository, 'rev-parse', 'HEAD');

    const one = await writeRun(host, 'one\nTWO by one\n');
    await waitForIdle(host, one.runId);
    const two = await writeRun(host, 'one\nTWO by two\n');
    await waitForIdle(host, two.runId);

    // Nothing asked, nothing in the checkout, both results committed on their branches.
    expect(host.events().filter((e) => e.type === 'tool.approval_requested')).toEqual([]);
    expect(gitIn(repository, 'rev-parse', 'HEAD')).toBe(headBefore);
    expect(gitIn(repository, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    const first = await resultOf(host, one.runId);
    const second = await resultOf(host, two.runId);
    expect(first.branch).not.toBe(second.branch);
    expect(first.files.map((file) => file.path).sort()).toEqual([
      'made-oneTWObyone.txt',
      'notes.txt',
    ]);
    // Git read its history inside the sandbox, and changed none of it.
    const logCall = host.query(
      (db) =>
        db
          .prepare(
            "SELECT model_content FROM tool_calls WHERE run_id = ? AND name = 'run_command' ORDER BY position",
          )
          .get(one.runId) as { model_content: string },
    );
    expect(logCall.model_content).toContain('first');
    expect(gitIn(worktreeFolder(host, one.sessionId), 'status', '--porcelain')).toBe('');

    const review = await host.channel.call('run.review', { runId: one.runId });
    expect(review).toMatchObject({ into: 'main', treeDigest: first.treeDigest, busy: false });

    const commandId = randomUUID();
    const merged = await integrate(host, one.runId, 'merge', first.treeDigest, commandId);
    expect(merged).toMatchObject({ state: 'merged', into: 'main', how: 'fast_forward' });
    expect(readFileSync(join(repository, 'notes.txt'), 'utf8')).toBe('one\nTWO by one\n');
    expect(existsSync(worktreeFolder(host, one.sessionId))).toBe(false);
    expect(gitIn(repository, 'branch', '--list', first.branch)).toBe('');
    // The same answer again is the same answer; another answer to it is refused.
    expect(await integrate(host, one.runId, 'merge', first.treeDigest, commandId)).toEqual(merged);
    await expect(integrate(host, one.runId, 'discard', first.treeDigest)).rejects.toThrow(
      /invalid_state: this worktree was already merged/,
    );

    const mergedHead = gitIn(repository, 'rev-parse', 'HEAD');
    await expect(integrate(host, two.runId, 'merge', second.treeDigest)).rejects.toThrow(
      /merge_conflict: .*conflicts in notes\.txt/,
    );
    expect(gitIn(repository, 'rev-parse', 'HEAD')).toBe(mergedHead);
    expect(gitIn(repository, 'status', '--porcelain')).toBe('');

    expect(await integrate(host, two.runId, 'discard', second.treeDigest)).toEqual({
      state: 'discarded',
    });
    expect(existsSync(worktreeFolder(host, two.sessionId))).toBe(false);
    expect(gitIn(repository, 'branch', '--list', 'tether/*')).toBe('');
    expect(gitIn(repository, 'worktree', 'list', '--porcelain')).not.toContain('worktrees');
    const integrated = host.events().filter((e) => e.type === 'run.integrated');
    expect(integrated.map((e) => (e.payload as { action: string }).action)).toEqual([
      'merge',
      'discard',
    ]);
  });

  it('refuses an answer bound to the tree before a follow-up changed it', async () => {
    await using host = await startFaultHost();
    const repository = makeRepository(host);
    const first = await writeRun(host, 'first draft\n');
    await waitForIdle(host, first.runId);
    const draft = await resultOf(host, first.runId);
    const follow = await writeRun(host, 'second draft\n', first.sessionId, 'first draft\n');
    await waitForIdle(host, follow.runId);
    const final = await resultOf(host, follow.runId);
    expect(final.branch).toBe(draft.branch);
    expect(final.treeDigest).not.toBe(draft.treeDigest);

    await expect(integrate(host, first.runId, 'merge', draft.treeDigest)).rejects.toThrow(
      /digest_mismatch/,
    );
    expect(readFileSync(join(repository, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(await integrate(host, follow.runId, 'keep', final.treeDigest)).toEqual({
      state: 'kept',
    });
    expect(existsSync(worktreeFolder(host, first.sessionId))).toBe(false);
    expect(gitIn(repository, 'show', `${final.branch}:notes.txt`)).toBe('second draft');
    await expect(
      host.channel.call('run.submit', {
        commandId: randomUUID(),
        sessionId: first.sessionId,
        input: { text: 'more' },
      }),
    ).rejects.toThrow(/invalid_state: the session's worktree was kept as its branch/);
  });

  it('is refused for a workspace that is not a repository, saying why', async () => {
    await using host = await startFaultHost();
    await expect(
      host.channel.call('run.submit', {
        commandId: randomUUID(),
        input: { text: 'go' },
        isolation: 'worktree',
      }),
    ).rejects.toThrow(
      /invalid_request: .* is not a git repository, so a run cannot have its own worktree/,
    );
    expect(host.events().filter((e) => e.type === 'session.created')).toEqual([]);
  });

  it("works in a worktree unasked for when the config makes it the workspace's default", async () => {
    // The config file sits beside the host's workspace folder (test/support/host-process.ts).
    await using host = await startFaultHost({
      config: { workspaces: [{ path: 'workspace', isolation: 'worktree' }] },
    });
    const repository = makeRepository(host);
    const info = await host.channel.call('host.info', {});
    expect(info['workspaces']).toEqual([
      { name: 'workspace', path: repository, isolation: 'worktree' },
    ]);

    host.model.push(
      toolCallTurn([
        {
          id: 'call_default_write',
          name: 'write_file',
          arguments: JSON.stringify({
            path: 'added.txt',
            content: 'by default\n',
            expectedSha256: null,
          }),
        },
      ]),
      textTurn('Done.'),
    );
    const submitted = await host.channel.call('run.submit', {
      commandId: randomUUID(),
      input: { text: 'add a file' },
    });
    const runId = String(submitted['runId']);
    const result = await resultOf(host, runId);
    expect(result.files).toEqual([{ path: 'added.txt', status: 'added' }]);
    expect(existsSync(join(repository, 'added.txt'))).toBe(false);
    expect(gitIn(repository, 'show', `${result.branch}:added.txt`)).toBe('by default');
  });

  it('is listed by doctor while it waits for review, and so is a folder left behind', async () => {
    await using host = await startFaultHost();
    makeRepository(host);
    const run = await writeRun(host, 'for the doctor\n');
    await waitForIdle(host, run.runId);
    const result = await resultOf(host, run.runId);
    const dataDir = host.host.dataDir;
    expect(checkWorktrees(dataDir)).toEqual({
      id: 'worktrees',
      status: 'pass',
      detail: '1 open, 1 waiting for review; none left behind',
    });

    // A week and a day later, still unanswered; and a folder a failed removal left.
    const leftOver = join(dataDir, 'worktrees', 'left-over');
    mkdirSync(leftOver);
    const later = checkWorktrees(dataDir, Date.now() + 8 * 86_400_000);
    expect(later.status).toBe('warn');
    expect(later.detail).toMatch(
      new RegExp(
        `^1 open, 1 waiting for review; 1 folder\\(s\\) no open run uses: ${leftOver}; 1 result\\(s\\) unanswered for over a week: ${result.branch} \\(since \\d{4}-\\d\\d-\\d\\d\\)$`,
      ),
    );
    expect(later.fix).toContain(`rm -rf '${leftOver}'`);
    expect(later.fix).toContain(`remote review ${run.runId}`);

    // Discarded, its folder is gone and nothing is open.
    rmSync(leftOver, { recursive: true });
    await integrate(host, run.runId, 'discard', result.treeDigest);
    expect(checkWorktrees(dataDir).detail).toBe('0 open, 0 waiting for review; none left behind');
  });

  it('leaves one commit when the host is killed right after it, recorded at the next start', async () => {
    await using host = await startFaultHost({ point: 'worktree-committed' });
    const repository = makeRepository(host);
    const run = await writeRun(host, 'killed after commit\n');
    await host.died();
    await host.restartClean();
    const result = await resultOf(host, run.runId);
    expect(result.committed).toBe(false);
    const log = gitIn(repository, 'log', '--format=%an', `${result.branch}`).split('\n');
    expect(log).toEqual([`Tether run ${run.runId}`, 'User']);
    expect(host.events().filter((e) => e.type === 'run.result')).toHaveLength(1);
    expect(await integrate(host, run.runId, 'merge', result.treeDigest)).toMatchObject({
      state: 'merged',
      how: 'fast_forward',
    });
    expect(readFileSync(join(repository, 'notes.txt'), 'utf8')).toBe('killed after commit\n');
  });
});
