/**
 * Issue 16 item 2 through the real host process and a paired channel: a call asks, the
 * card's rule is added with `policy.rule_add` (which approves it), the next identical call
 * runs without asking and names the rule, wider calls still ask, the rule survives a
 * restart, and once removed the same call asks again. No rule is offered for `python
 * x.py`, `ls ../`, `cat .env` or `echo $(id)`.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFaultHost, type FaultHost } from '../support/fault-host.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { until } from '../support/wait.js';

const Preview = z.looseObject({
  ruleProposal: z.union([
    z.looseObject({ offered: z.literal(true), words: z.array(z.string()), matches: z.string() }),
    z.looseObject({ offered: z.literal(false), reason: z.string() }),
  ]),
});

interface Pending {
  id: string;
  toolCallId: string;
  inputDigest: string;
  preview: z.infer<typeof Preview>;
}

async function propose(
  host: FaultHost,
  input: { command: string; cwd?: string },
  isolation?: 'worktree' | 'none',
): Promise<string> {
  host.model.push(
    toolCallTurn([
      { id: `call_${randomUUID()}`, name: 'run_command', arguments: JSON.stringify(input) },
    ]),
    textTurn('Done.'),
  );
  const result = await host.channel.call('run.submit', {
    commandId: randomUUID(),
    input: { text: `run ${input.command}` },
    ...(isolation === undefined ? {} : { isolation }),
  });
  return String(result['runId']);
}

/** The run's pending approval, or `ran` once its call ran without one. */
function outcome(host: FaultHost, runId: string): Promise<Pending | 'ran'> {
  return until(`an approval or the end of ${runId}`, () => {
    const row = host.query(
      (db) =>
        db
          .prepare(
            "SELECT id, tool_call_id, input_digest, preview_json FROM approvals WHERE run_id = ? AND state = 'pending'",
          )
          .get(runId) as
          | { id: string; tool_call_id: string; input_digest: string; preview_json: string }
          | undefined,
    );
    if (row !== undefined) {
      return {
        id: row.id,
        toolCallId: row.tool_call_id,
        inputDigest: row.input_digest,
        preview: Preview.parse(JSON.parse(row.preview_json)),
      };
    }
    const types = host.typesOf(runId);
    if (!types.includes('session.idle')) return undefined;
    if (!types.includes('tool.started')) throw new Error(`${runId} ended without running its call`);
    return 'ran';
  });
}

/** Denies a call that asked and waits for its run to end, so the model's turns stay in step. */
async function deny(host: FaultHost, runId: string, approval: Pending): Promise<void> {
  await host.channel.call('approval.respond', {
    commandId: randomUUID(),
    approvalId: approval.id,
    toolCallId: approval.toolCallId,
    inputDigest: approval.inputDigest,
    decision: 'deny',
  });
  await until(`the end of ${runId}`, () =>
    host.typesOf(runId).includes('session.idle') ? true : undefined,
  );
}

/** Proposes the call and says whether it asked (the approval is denied then) or ran. */
async function asks(host: FaultHost, input: { command: string; cwd?: string }): Promise<boolean> {
  const runId = await propose(host, input);
  const result = await outcome(host, runId);
  if (result === 'ran') return false;
  await deny(host, runId, result);
  return true;
}

function allowedByOf(host: FaultHost, runId: string): unknown {
  const row = host.query(
    (db) =>
      db.prepare('SELECT state, allowed_by_json FROM tool_calls WHERE run_id = ?').get(runId) as {
        state: string;
        allowed_by_json: string | null;
      },
  );
  const allowedBy: unknown = row.allowed_by_json === null ? null : JSON.parse(row.allowed_by_json);
  return { state: row.state, allowedBy };
}

async function addRule(host: FaultHost, approval: Pending, commandId = randomUUID()) {
  return host.channel.call('policy.rule_add', {
    commandId,
    approvalId: approval.id,
    toolCallId: approval.toolCallId,
    inputDigest: approval.inputDigest,
  });
}

describe('a rule added from the app', () => {
  it("added in a run's own worktree, is the workspace's: it holds in the checkout and in the next worktree", async () => {
    // Every command in a worktree asks here, so the card offers its rule.
    await using host = await startFaultHost({ config: { policy: { worktree: 'ask' } } });
    const repository = host.host.workspace;
    const git = (...args: string[]) => execFileSync('git', ['-C', repository, ...args]);
    git('init', '--quiet', '--initial-branch=main');
    git('-c', 'user.name=User', '-c', 'user.email=user@example.com', 'add', '.');
    git('-c', 'user.name=User', '-c', 'user.email=user@example.com', 'commit', '-qm', 'first');
    const command = 'wc -l README.md';

    const inWorktree = await propose(host, { command }, 'worktree');
    const first = await outcome(host, inWorktree);
    if (first === 'ran') throw new Error(`${command} ran without asking in a worktree`);
    const added = await addRule(host, first);
    expect(await outcome(host, inWorktree)).toBe('ran');
    const ruleId = String(added['ruleId']);
    const event = host.events().find((each) => each.type === 'policy.rule_added');
    expect(event?.payload).toMatchObject({ ruleId, workspace: repository });

    const inCheckout = await propose(host, { command }, 'none');
    expect(await outcome(host, inCheckout)).toBe('ran');
    expect(allowedByOf(host, inCheckout)).toMatchObject({ allowedBy: { ruleId } });
    const nextWorktree = await propose(host, { command }, 'worktree');
    expect(await outcome(host, nextWorktree)).toBe('ran');
    expect(allowedByOf(host, nextWorktree)).toMatchObject({ allowedBy: { ruleId } });
    const listed = await host.channel.call('policy.rules');
    expect(listed['rules']).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: ruleId, workspace: repository })]),
    );
  }, 90_000);

  it('allows the next identical call and nothing wider, survives a restart, and is removable', async () => {
    await using host = await startFaultHost();
    mkdirSync(join(host.host.workspace, 'src'));
    writeFileSync(join(host.host.workspace, 'src', 'a.ts'), 'export {};\n');
    const command = 'ls -a src';

    const firstRun = await propose(host, { command });
    const first = await outcome(host, firstRun);
    if (first === 'ran') throw new Error(`${command} ran without asking`);
    expect(first.preview.ruleProposal).toMatchObject({
      offered: true,
      words: ['ls', '-a', 'src'],
    });
    const commandId = randomUUID();
    const added = await addRule(host, first, commandId);
    expect(added).toMatchObject({ status: 'approved' });
    const ruleId = String(added['ruleId']);
    // Resent, the command answers as the first time and adds nothing.
    expect(await addRule(host, first, commandId)).toEqual(added);
    expect(await outcome(host, firstRun)).toBe('ran');
    const addedEvents = host.events().filter((event) => event.type === 'policy.rule_added');
    expect(addedEvents).toHaveLength(1);
    expect(addedEvents[0]?.payload).toMatchObject({
      ruleId,
      rule: ['ls', '-a', 'src'],
      by: host.paired.deviceId,
      approvalId: first.id,
    });

    const again = await propose(host, { command });
    expect(await outcome(host, again)).toBe('ran');
    expect(allowedByOf(host, again)).toMatchObject({
      state: 'succeeded',
      allowedBy: { ruleId, words: ['ls', '-a', 'src'] },
    });
    const started = host
      .events()
      .find((event) => event.runId === again && event.type === 'tool.started');
    expect(started?.payload).toMatchObject({ allowedBy: { ruleId } });

    for (const wider of [
      { command: 'ls -a src -R' },
      { command: 'ls -a src README.md' },
      { command: 'ls -a src ..' },
      { command: 'ls -a' },
      { command: 'ls -a src; id' },
      { command, cwd: '..' },
    ]) {
      expect(await asks(host, wider), JSON.stringify(wider)).toBe(true);
    }

    const listed = await host.channel.call('policy.rules');
    expect(listed['rules']).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: 'config', removable: false }),
        expect.objectContaining({
          id: ruleId,
          source: 'app',
          words: ['ls', '-a', 'src'],
          addedBy: expect.objectContaining({ deviceId: host.paired.deviceId }) as unknown,
          removable: true,
        }),
      ]),
    );

    await host.restartClean();
    const afterRestart = await propose(host, { command });
    expect(await outcome(host, afterRestart)).toBe('ran');

    await host.channel.call('policy.rule_remove', { commandId: randomUUID(), ruleId });
    expect(host.events().some((event) => event.type === 'policy.rule_removed')).toBe(true);
    expect(await asks(host, { command })).toBe(true);

    await expect(
      host.channel.call('policy.rule_remove', { commandId: randomUUID(), ruleId }),
    ).rejects.toThrow(/invalid_state: rule .* was removed already/);
    await expect(
      host.channel.call('policy.rule_remove', { commandId: randomUUID(), ruleId: 'rul_nope' }),
    ).rejects.toThrow(/not_found: no rule rul_nope/);
    await expect(
      host.channel.call('policy.rule_remove', { commandId: randomUUID(), ruleId: 'cfg_0' }),
    ).rejects.toThrow(/invalid_state: .*config file/);
  }, 90_000);

  it('is not offered for python x.py, ls ../, cat .env, echo $(id), and cannot be added then', async () => {
    await using host = await startFaultHost();
    writeFileSync(join(host.host.workspace, '.env'), 'TOKEN=secret\n');
    for (const command of ['python x.py', 'ls ../', 'cat .env', 'echo $(id)']) {
      const runId = await propose(host, { command });
      const approval = await outcome(host, runId);
      if (approval === 'ran') throw new Error(`${command} ran without asking`);
      expect(approval.preview.ruleProposal, command).toMatchObject({ offered: false });
      await expect(addRule(host, approval), command).rejects.toThrow(
        /invalid_state: the host offered no rule/,
      );
      await deny(host, runId, approval);
    }
    expect(host.events().some((event) => event.type === 'policy.rule_added')).toBe(false);
  });
});
