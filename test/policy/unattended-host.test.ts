/**
 * Issue 11 against the real host process: a scripted model proposes each attack of the
 * adversarial review, and the side effect must not happen without an approval (findings
 * 1, 2 and 4), while the approval card carries every field that changes what runs (the
 * host's side of finding 3).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFaultHost, type FaultHost } from '../support/fault-host.js';
import {
  proposeCall,
  untilApproval,
  untilIdle,
  type PendingApproval,
} from '../support/fault-host-runs.js';

/** The rules docs/policy.md showed as its example before this issue. */
const OLD_EXAMPLE_RULES = [
  ['git', 'status'],
  ['git', 'diff'],
  ['npm', 'test'],
];

/** A host whose config holds `policy`; each test disposes of it (`await using`). */
function start(policy: Record<string, unknown>): Promise<FaultHost> {
  return startFaultHost({ config: { policy } });
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore', env: { ...process.env, HOME: cwd } });
}

function initRepository(workspace: string): void {
  git(workspace, 'init', '-q');
  git(workspace, '-c', 'user.name=t', '-c', 'user.email=t@t', 'add', 'README.md');
  git(workspace, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init');
}

interface CallRow {
  id: string;
  state: string;
  result: Record<string, unknown> | null;
}

function callOf(host: FaultHost, runId: string): CallRow {
  const row = host.query(
    (db) =>
      db
        .prepare('SELECT id, state, result_json FROM tool_calls WHERE run_id = ? ORDER BY position')
        .get(runId) as { id: string; state: string; result_json: string | null },
  );
  const result =
    row.result_json === null
      ? null
      : z.record(z.string(), z.unknown()).parse(JSON.parse(row.result_json));
  return { id: row.id, state: row.state, result };
}

async function approve(host: FaultHost, approval: PendingApproval): Promise<void> {
  await host.channel.call('approval.respond', {
    commandId: randomUUID(),
    approvalId: approval.id,
    toolCallId: approval.toolCallId,
    inputDigest: approval.inputDigest,
    decision: 'approve',
  });
}

describe('issue 11 finding 1: options turn an allow rule into code execution', () => {
  it('git diff --output=FILE under the old example rules asks, and writes nothing', async () => {
    await using host = await start({ commands: { allow: OLD_EXAMPLE_RULES } });
    initRepository(host.host.workspace);
    const command = 'git diff --output=pwned.txt';
    const runId = await proposeCall(host, 'run_command', { command });
    const approval = await untilApproval(host, runId);
    expect(approval.preview).toMatchObject({ kind: 'command', command });
    expect(approval.reason).toContain('allows exactly those words, and the command adds');
    expect(existsSync(join(host.host.workspace, 'pwned.txt'))).toBe(false);
  });

  it('npm test --node-options=… asks, and the preloaded script never runs', async () => {
    await using host = await start({ commands: { allow: OLD_EXAMPLE_RULES } });
    const { workspace } = host.host;
    writeFileSync(join(workspace, 'package.json'), '{"scripts":{"test":"node -e 0"}}\n');
    writeFileSync(join(workspace, 'evil.cjs'), "require('fs').writeFileSync('pwned.txt', 'x')\n");
    const command = 'npm test --node-options=--require=./evil.cjs';
    const runId = await proposeCall(host, 'run_command', { command });
    const approval = await untilApproval(host, runId);
    expect(approval.preview).toMatchObject({ kind: 'command', command });
    expect(existsSync(join(workspace, 'pwned.txt'))).toBe(false);
  });

  it('the exact rule still runs unasked', async () => {
    await using host = await start({ commands: { allow: OLD_EXAMPLE_RULES } });
    initRepository(host.host.workspace);
    const runId = await proposeCall(host, 'run_command', { command: 'git status' });
    await untilIdle(host, runId);
    expect(callOf(host, runId)).toMatchObject({ state: 'succeeded', result: { exitCode: 0 } });
  });
});

describe('an allowed git command sees no repository above the workspace', () => {
  it('git status in a workspace inside a larger repository finds no repository', async () => {
    await using host = await start({ commands: { allow: [['git', 'status']] } });
    const outer = dirname(host.host.workspace);
    writeFileSync(join(outer, 'deploy.key'), 'DB=pw\n');
    git(outer, 'init', '-q');
    // Run as an approved command would be, git status lists the file outside the workspace.
    const plain = execFileSync('git', ['status', '--short'], { cwd: host.host.workspace });
    expect(plain.toString()).toContain('deploy.key');

    const runId = await proposeCall(host, 'run_command', { command: 'git status' });
    await untilIdle(host, runId);
    const call = callOf(host, runId);
    expect(call).toMatchObject({ state: 'failed', result: { exitCode: 128 } });
    const output = host.query(
      (db) =>
        db.prepare('SELECT model_content FROM tool_calls WHERE id = ?').get(call.id) as {
          model_content: string;
        },
    );
    expect(output.model_content).toContain('not a git repository');
    expect(output.model_content).not.toContain('deploy.key');
  });
});

describe('issue 11 finding 2: an allowed command must not run code from repository config', () => {
  const fsmonitor = (marker: string) =>
    `[core]\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "touch ${marker}; false"\n`;

  it('git status in an embedded bare repository asks, and its fsmonitor never runs', async () => {
    await using host = await start({ commands: { allow: [['git', 'status']] } });
    const evil = join(host.host.workspace, 'evil');
    for (const folder of ['objects', 'refs/heads'])
      mkdirSync(join(evil, folder), { recursive: true });
    writeFileSync(join(evil, 'HEAD'), 'ref: refs/heads/main\n');
    const marker = join(host.host.workspace, 'fsmonitor-ran');
    writeFileSync(join(evil, 'config'), fsmonitor(marker));
    const runId = await proposeCall(host, 'run_command', { command: 'git status', cwd: 'evil' });
    const approval = await untilApproval(host, runId);
    expect(approval.reason).toContain('a repository of its own');
    expect(existsSync(marker)).toBe(false);
  });

  it("git status allowed in the workspace runs with the repository's fsmonitor and hooks off", async () => {
    await using host = await start({ commands: { allow: [['git', 'status']] } });
    const { workspace } = host.host;
    initRepository(workspace);
    const marker = join(workspace, 'fsmonitor-ran');
    writeFileSync(
      join(workspace, '.git', 'config'),
      `${readFileSync(join(workspace, '.git', 'config'), 'utf8')}[core]\n\tfsmonitor = "touch ${marker}; false"\n`,
    );
    // The same command, run as an approved one would be, does run the hook.
    execFileSync('sh', ['-c', 'git status >/dev/null 2>&1 || true'], { cwd: workspace });
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);

    const runId = await proposeCall(host, 'run_command', { command: 'git status' });
    await untilIdle(host, runId);
    expect(callOf(host, runId)).toMatchObject({ state: 'succeeded' });
    expect(existsSync(marker)).toBe(false);
  });
});

describe('issue 11 finding 4: policy is decided again when an approval is answered and at execution', () => {
  it('an approval answered after a restart with run_command "deny" fails permission_denied', async () => {
    await using host = await start({});
    const runId = await proposeCall(host, 'run_command', { command: 'sh mark.sh late' });
    const approval = await untilApproval(host, runId);
    await host.host.stop();
    const configFile = join(dirname(host.host.dataDir), 'config.json');
    writeFileSync(configFile, JSON.stringify({ policy: { tools: { run_command: 'deny' } } }));
    await host.restartClean();
    await approve(host, approval);
    await untilIdle(host, runId);
    const call = callOf(host, runId);
    expect(call.state).toBe('failed');
    expect(call.result).toMatchObject({ error: { code: 'permission_denied' } });
    expect(JSON.stringify(call.result)).toContain('the policy changed since');
    expect(host.markerLines()).toEqual([]);
  });

  it('a folder swapped for a symlink into .git/hooks after the card cannot write the hook', async () => {
    await using host = await start({});
    const { workspace } = host.host;
    initRepository(workspace);
    mkdirSync(join(workspace, 'hooksdir'));
    const input = {
      path: 'hooksdir/pre-commit',
      content: '#!/bin/sh\ntouch pwned\n',
      expectedSha256: null,
    };
    const runId = await proposeCall(host, 'write_file', input);
    const approval = await untilApproval(host, runId);
    expect(approval.preview).toMatchObject({
      kind: 'write',
      path: 'hooksdir/pre-commit',
      realPath: join(workspace, 'hooksdir', 'pre-commit'),
    });
    rmSync(join(workspace, 'hooksdir'), { recursive: true });
    symlinkSync('.git/hooks', join(workspace, 'hooksdir'));
    await approve(host, approval);
    await untilIdle(host, runId);
    expect(callOf(host, runId)).toMatchObject({
      state: 'failed',
      result: { error: { code: 'permission_denied' } },
    });
    expect(existsSync(join(workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });
});

describe('issue 11 finding 3 (host side): the card carries every field that changes what runs', () => {
  it('a command outside the workspace previews the command, its folder and the outside path', async () => {
    await using host = await start({});
    const outside = dirname(host.host.workspace);
    const command = 'sh workspace/mark.sh outside';
    const runId = await proposeCall(host, 'run_command', { command, cwd: outside });
    const approval = await untilApproval(host, runId);
    expect(approval.preview).toEqual({
      kind: 'command',
      command,
      cwd: outside,
      outside: { path: outside, access: 'write' },
      // Approved, it may change files in its folder outside the workspace, and says so.
      sandbox: expect.objectContaining({
        contained: true,
        writable: [host.host.workspace, outside],
      }) as unknown,
      ruleProposal: expect.objectContaining({ offered: false }) as unknown,
    });
  });

  it('a write outside the workspace previews its real path and its diff', async () => {
    await using host = await start({});
    const target = join(dirname(host.host.workspace), 'outside.txt');
    const runId = await proposeCall(host, 'write_file', {
      path: target,
      content: 'hello\n',
      expectedSha256: null,
    });
    const approval = await untilApproval(host, runId);
    expect(approval.preview).toMatchObject({
      kind: 'write',
      realPath: target,
      outside: { path: target, access: 'write' },
    });
    expect(String(approval.preview['diff'])).toContain('+hello');
    await approve(host, approval);
    await untilIdle(host, runId);
    expect(readFileSync(target, 'utf8')).toBe('hello\n');
  });
});
