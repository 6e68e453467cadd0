/**
 * Issue 23's findings against the real host process and the real sandbox: a scripted
 * model proposes each attack the review found, through the rules the app offered or the
 * docs showed, and none of it reaches a secret, git's hooks or config, or the network.
 * Each failed on main before the sandbox (the command ran, or the rule was offered).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFaultHost, type FaultHost } from '../support/fault-host.js';
import { proposeCall, untilApproval, untilIdle } from '../support/fault-host-runs.js';
import { machineSandboxStatus } from '../support/sandbox.js';

const bwrap = machineSandboxStatus.available && machineSandboxStatus.kind === 'bwrap';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    env: { ...process.env, HOME: cwd },
  }).toString();
}

function initRepository(workspace: string): void {
  git(workspace, 'init', '-q');
  git(workspace, 'add', 'README.md');
  git(workspace, 'commit', '-qm', 'init');
}

const Json = z.record(z.string(), z.unknown());

interface Outcome {
  state: string;
  result: Record<string, unknown> | null;
  modelContent: string | null;
}

function outcomeOf(host: FaultHost, runId: string): Outcome {
  const row = host.query(
    (db) =>
      db
        .prepare('SELECT state, result_json, model_content FROM tool_calls WHERE run_id = ?')
        .get(runId) as { state: string; result_json: string | null; model_content: string | null },
  );
  return {
    state: row.state,
    result: row.result_json === null ? null : Json.parse(JSON.parse(row.result_json)),
    modelContent: row.model_content,
  };
}

async function ranUnasked(host: FaultHost, input: object): Promise<Outcome> {
  const runId = await proposeCall(host, 'run_command', input);
  await untilIdle(host, runId);
  expect(host.typesOf(runId)).not.toContain('tool.approval_requested');
  return outcomeOf(host, runId);
}

/** Proposes `input`, approves it as a person would, and waits for the run to end. */
async function approved(host: FaultHost, input: object): Promise<Outcome> {
  const runId = await proposeCall(host, 'run_command', input);
  const approval = await untilApproval(host, runId);
  await host.channel.call('approval.respond', {
    commandId: randomUUID(),
    approvalId: approval.id,
    toolCallId: approval.toolCallId,
    inputDigest: approval.inputDigest,
    decision: 'approve',
  });
  await untilIdle(host, runId);
  return outcomeOf(host, runId);
}

describe.skipIf(!bwrap)(
  'issue 23 findings in the sandbox (needs bwrap; skipped without it)',
  () => {
    it('an assignment before the program is never offered a rule, and means nothing unasked', async () => {
      await using host = await startFaultHost({
        config: { policy: { commands: { allow: [['git', 'diff']] } } },
      });
      initRepository(host.host.workspace);
      const runId = await proposeCall(host, 'run_command', {
        command: 'GIT_CONFIG_GLOBAL=gitconfig git diff',
      });
      const approval = await untilApproval(host, runId);
      expect(approval.preview).toMatchObject({
        ruleProposal: {
          offered: false,
          reason: expect.stringContaining('an assignment') as unknown,
        },
        sandbox: { contained: true, kind: 'bwrap', network: false },
      });
    });

    it('a Makefile the model changed cannot write a hook or git config under a rule', async () => {
      await using host = await startFaultHost({
        config: { policy: { commands: { allow: [['make', 'check']] } } },
      });
      const { workspace } = host.host;
      initRepository(workspace);
      writeFileSync(
        join(workspace, 'Makefile'),
        'check:\n\techo "#!/bin/sh" > .git/hooks/pre-commit; git config core.hooksPath scripts; echo done\n',
      );
      const outcome = await ranUnasked(host, { command: 'make check' });
      expect(outcome.modelContent).toMatch(/Read-only file system|could not lock config/);
      expect(existsSync(join(workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
      expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).not.toContain('hooksPath');
    });

    it("grep -rn under the docs' example rule does not print .env", async () => {
      await using host = await startFaultHost({
        config: { policy: { commands: { allow: [['grep', '-rn', 'TODO']] } } },
      });
      writeFileSync(join(host.host.workspace, '.env'), 'TODO_TOKEN=sk-dotenv-secret-1234\n');
      writeFileSync(join(host.host.workspace, 'a.txt'), 'TODO: ship\n');
      const outcome = await ranUnasked(host, { command: 'grep -rn TODO' });
      expect(outcome.modelContent).toContain('a.txt:1:TODO: ship');
      expect(outcome.modelContent).not.toContain('sk-dotenv-secret');
    });

    it('git add -A and git commit under rules never take a secret into the repository', async () => {
      await using host = await startFaultHost({
        config: {
          policy: {
            commands: {
              allow: [
                ['git', 'add', '-A'],
                ['git', 'commit', '-m', 'wip'],
              ],
            },
          },
        },
      });
      const { workspace } = host.host;
      initRepository(workspace);
      writeFileSync(join(workspace, '.env.local'), 'DB_PASSWORD=hunter2-secret\n');
      writeFileSync(join(workspace, 'notes.txt'), 'plain\n');
      await ranUnasked(host, { command: 'git add -A' });
      await ranUnasked(host, { command: 'git commit -m wip' });
      const committed = git(workspace, 'log', '-p', '--all');
      expect(committed).not.toContain('hunter2-secret');
    });

    it("an approved command reads neither the host's data directory nor reaches its port", async () => {
      await using host = await startFaultHost();
      const { dataDir, url } = host.host;
      const listing = await approved(host, {
        command: `ls -la ${dataDir}; cat ${dataDir}/admin.json`,
      });
      expect(listing.modelContent).not.toContain('tether.db');
      expect(listing.modelContent).not.toContain('token');
      const port = new URL(url).port;
      const connect = await approved(host, {
        command: `node -e "require('http').get('http://127.0.0.1:${port}/',r=>console.log('reached',r.statusCode)).on('error',e=>{console.log(e.code);process.exit(3)})"`,
      });
      expect(connect.state).toBe('failed');
      expect(connect.modelContent).not.toContain('reached');
    });

    it('a patch applied under a rule that writes a protected file is caught, and run.changes says so', async () => {
      await using host = await startFaultHost({
        config: { policy: { commands: { allow: [['git', 'apply', 'fix.patch']] } } },
      });
      const { workspace } = host.host;
      initRepository(workspace);
      // The patch the model wrote also creates .env.local (the attack review's `git apply`).
      writeFileSync(
        join(workspace, 'fix.patch'),
        [
          'diff --git a/.env.local b/.env.local',
          'new file mode 100644',
          '--- /dev/null',
          '+++ b/.env.local',
          '@@ -0,0 +1 @@',
          '+API_URL=https://attacker.test',
          '',
        ].join('\n'),
      );
      const runId = await proposeCall(host, 'run_command', { command: 'git apply fix.patch' });
      await untilIdle(host, runId);
      const outcome = outcomeOf(host, runId);
      expect(outcome.state).toBe('failed');
      expect(outcome.result).toMatchObject({ error: { code: 'protected_path_changed' } });
      expect(outcome.modelContent).toContain('.env.local');
      const changes = await host.channel.call('run.changes', { runId });
      expect(changes['commands']).toEqual([
        expect.objectContaining({
          command: 'git apply fix.patch',
          errorCode: 'protected_path_changed',
          protectedChanges: ['.env.local'],
        }),
      ]);
    });

    it('asking for the network always asks, and the card says so', async () => {
      await using host = await startFaultHost({
        config: { policy: { tools: { run_command: 'allow' } } },
      });
      const runId = await proposeCall(host, 'run_command', {
        command: 'npm install',
        sandbox: { network: true },
      });
      const approval = await untilApproval(host, runId);
      expect(approval.reason).toContain('network access');
      expect(approval.preview).toMatchObject({ sandbox: { contained: true, network: true } });
    });
  },
);
