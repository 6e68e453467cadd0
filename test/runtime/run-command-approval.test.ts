import { readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PolicyConfig } from '../../host/policy/index.js';
import { decidePolicy } from '../../host/policy/testing.js';
import { readOnlyTools, type ToolDefinition } from '../../host/tools/index.js';
import { editFileTool, createRunCommandTool } from '../../host/tools/testing.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { until } from '../support/wait.js';
import { commandId, startHarness, type Harness } from './harness.js';
import { machineSandbox, machineSandboxStatus } from '../support/sandbox.js';

/** Processes of group `pgid` that are not zombies (PID 1 reaps those in its own time). */
function liveMembers(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(fields[2]) === pgid && fields[0] !== 'Z' ? [Number(pid)] : [];
      } catch {
        return [];
      }
    });
}

const tools = [
  ...readOnlyTools,
  createRunCommandTool({ sandbox: machineSandbox() }),
  editFileTool,
] as ToolDefinition<unknown>[];
const policy = PolicyConfig.parse({ commands: { allow: [['echo', '…']] } });

/** Approves exactly what the approval shows, as a remote would. */
function approve(
  harness: Harness,
  approval: { id: string; toolCallId: string; inputDigest: string },
): void {
  harness.runtime.respondApproval(
    {
      commandId: commandId(),
      approvalId: approval.id,
      toolCallId: approval.toolCallId,
      inputDigest: approval.inputDigest,
      decision: 'approve',
    },
    'dev',
  );
}

function start(): Promise<Harness> {
  return startHarness({
    runtime: {
      tools,
      policy: (call, workspace) =>
        decidePolicy(call, {
          workspace,
          policy,
          homedir: '/nonexistent-home',
          sandbox: machineSandboxStatus,
        }),
    },
  });
}

describe('run_command through policy and approval', () => {
  it('asks for a command, shows it, runs it once approved; output is readable', async () => {
    await using harness = await start();
    harness.model.push(
      toolCallTurn([
        {
          id: 'c',
          name: 'run_command',
          arguments: '{"command":"printf \'%s\\\\n\' one two; exit 3"}',
        },
      ]),
      textTurn('ran'),
    );
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'run' } },
      'dev',
    );
    await harness.runtime.whenIdle();
    const parked = harness.runtime.getRun(runId);
    const approval = parked.approvals[0]!;
    expect(approval.preview).toEqual({
      kind: 'command',
      command: "printf '%s\\n' one two; exit 3",
      cwd: harness.workspace,
      sandbox: machineSandboxStatus.available
        ? {
            contained: true,
            kind: machineSandboxStatus.kind,
            writable: [harness.workspace],
            network: false,
          }
        : { contained: false, reason: machineSandboxStatus.reason },
      ruleProposal: {
        offered: false,
        reason:
          'The command contains the shell metacharacter "\\\\", so no rule can match it safely',
      },
    });
    expect(approval.reason.length).toBeGreaterThan(5);
    approve(harness, approval);
    await harness.runtime.whenIdle();
    const call = harness.runtime.getRun(runId).toolCalls[0]!;
    expect(call.state).toBe('failed');
    expect(call.result).toMatchObject({ exitCode: 3 });
    // What the tool declares it touches, for remotes that list changes by it.
    expect(call.access).toBe('command');
    const proposed = harness.events.find(
      (e) => e.type === 'tool.proposed' && e.toolCallId === call.id,
    );
    expect(proposed?.payload).toMatchObject({ name: 'run_command', access: 'command' });
    expect(harness.runtime.readOutput({ toolCallId: call.id, offset: 0, limit: 1000 }).text).toBe(
      'one\ntwo\n',
    );
    const finished = harness.events.find(
      (e) => e.type === 'tool.finished' && e.toolCallId === call.id,
    );
    expect(finished?.payload).toMatchObject({
      status: 'failed',
      exitCode: 3,
      bytes: 8,
      truncated: false,
    });
  });

  it('runs a command an open allow rule matches without asking', async () => {
    await using harness = await start();
    harness.model.push(
      toolCallTurn([{ id: 'e', name: 'run_command', arguments: '{"command":"echo hi"}' }]),
      textTurn('ok'),
    );
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'echo' } },
      'dev',
    );
    await harness.runtime.whenIdle();
    const run = harness.runtime.getRun(runId);
    expect(run.approvals).toEqual([]);
    expect(run.toolCalls[0]).toMatchObject({ state: 'succeeded' });
    expect(run.run.state).toBe('succeeded');
  });

  it.runIf(process.platform === 'linux')(
    'cancel while a command runs stops its whole process group',
    async () => {
      await using harness = await start();
      harness.model.push(
        toolCallTurn([
          { id: 's', name: 'run_command', arguments: '{"command":"sleep 30 & sleep 30"}' },
        ]),
      );
      const { runId } = harness.runtime.submit(
        { commandId: commandId(), input: { text: 'sleep' } },
        'dev',
      );
      await harness.runtime.whenIdle();
      const approval = harness.runtime.getRun(runId).approvals[0]!;
      approve(harness, approval);
      const pgid = await until(
        'the command’s process group',
        () => harness.store.tools.getToolCall(approval.toolCallId)?.processGroup ?? undefined,
        { timeout: 2_000, interval: 10 },
      );
      harness.runtime.cancel({ commandId: commandId(), runId }, 'dev');
      await harness.runtime.whenIdle();
      expect(harness.runtime.getRun(runId).run.state).toBe('cancelled');
      expect(harness.runtime.getRun(runId).toolCalls[0]?.state).toBe('cancelled');
      expect(liveMembers(pgid)).toEqual([]);
    },
  );

  it('a path outside the workspace asks once, naming the path; approved, that one read works', async () => {
    await using harness = await start();
    const outside = join(harness.workspace, '..', 'notes.txt');
    writeFileSync(outside, 'outside the workspace\n');
    harness.model.push(
      toolCallTurn([
        { id: 'o', name: 'read_file', arguments: JSON.stringify({ path: '../notes.txt' }) },
      ]),
      textTurn('read it'),
    );
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'read' } },
      'dev',
    );
    await harness.runtime.whenIdle();
    const approval = harness.runtime.getRun(runId).approvals[0]!;
    expect(approval.preview).toEqual({
      kind: 'path',
      path: realpathSync(outside),
      access: 'read',
      outside: { path: realpathSync(outside), access: 'read' },
      ruleProposal: expect.objectContaining({ offered: false }) as unknown,
    });
    approve(harness, approval);
    await harness.runtime.whenIdle();
    const call = harness.runtime.getRun(runId).toolCalls[0]!;
    expect(call.state).toBe('succeeded');
    expect(
      harness.runtime.readOutput({ toolCallId: call.id, offset: 0, limit: 1000 }).text,
    ).toContain('outside the workspace');
  });

  it('an edit without expectedSha256 still refuses a file changed after its diff was approved', async () => {
    await using harness = await start();
    const file = join(harness.workspace, 'greeting.txt');
    writeFileSync(file, 'hello world\n');
    harness.model.push(
      toolCallTurn([
        {
          id: 'e',
          name: 'edit_file',
          arguments: JSON.stringify({ path: 'greeting.txt', oldText: 'hello', newText: 'goodbye' }),
        },
      ]),
      textTurn('tried'),
    );
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'edit' } },
      'dev',
    );
    await harness.runtime.whenIdle();
    const approval = harness.runtime.getRun(runId).approvals[0]!;
    expect(approval.preview).toMatchObject({ kind: 'write', path: 'greeting.txt' });
    writeFileSync(file, 'hello world, and more\n');
    approve(harness, approval);
    await harness.runtime.whenIdle();
    const call = harness.runtime.getRun(runId).toolCalls[0]!;
    expect(call).toMatchObject({ state: 'failed', result: { error: { code: 'conflict' } } });
    expect(readFileSync(file, 'utf8')).toBe('hello world, and more\n');
  });
});
