/**
 * Issue 23: a registered secret (the admin token, the host key, a model key) that a tool's
 * result holds never reaches the model: the runtime masks the result with the store's
 * Redactor, as event payloads are, before the next request is built.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../host/log/index.js';
import { Sandbox } from '../../host/sandbox/index.js';
import { readOnlyTools, type ToolDefinition } from '../../host/tools/index.js';
import { createRunCommandTool } from '../../host/tools/testing.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { commandId, startHarness } from './harness.js';

// No sandbox: the command runs once approved, with full access, as on a machine without one.
const noSandbox = new Sandbox(
  { available: false, reason: 'this test runs without one', fix: 'none needed' },
  () => Promise.resolve({ isSecret: () => false, fixedPaths: [], patterns: [] }),
  '/nonexistent-home',
);
const tools = [
  ...readOnlyTools,
  createRunCommandTool({ sandbox: noSandbox }),
] as ToolDefinition<unknown>[];

describe('a registered secret in a tool result', () => {
  it('reaches the model only as the mask', async () => {
    const secret = `tok-${randomBytes(24).toString('hex')}`;
    const secrets = new Redactor();
    secrets.register(secret);
    await using harness = await startHarness({
      secrets,
      runtime: {
        tools,
        // Every call asks, and is approved below: what runs is what the user allowed.
        policy: () => Promise.resolve({ decision: 'ask', reason: 'the test approves each call' }),
      },
    });
    writeFileSync(join(harness.workspace, 'token.txt'), `admin token: ${secret}\n`);
    harness.model.push(
      toolCallTurn([
        {
          id: 'run',
          name: 'run_command',
          arguments: JSON.stringify({ command: `echo ${secret}` }),
        },
        { id: 'read', name: 'read_file', arguments: '{"path":"token.txt"}' },
      ]),
      textTurn('done'),
    );
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'print the token' } },
      'dev',
    );
    for (let round = 0; round < 2; round += 1) {
      await harness.runtime.whenIdle();
      const pending = harness.runtime.getRun(runId).approvals.filter((a) => a.state === 'pending');
      for (const approval of pending) {
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
    }
    await harness.runtime.whenIdle();

    const run = harness.runtime.getRun(runId);
    expect(run.run.state).toBe('succeeded');
    expect(run.toolCalls.map((call) => [call.name, call.state])).toEqual([
      ['run_command', 'succeeded'],
      ['read_file', 'succeeded'],
    ]);
    const results = harness.model
      .chatBodies()[1]!
      .messages.flatMap((message) => (message.role === 'tool' ? [String(message['content'])] : []));
    expect(results).toHaveLength(2);
    expect(results[0]).toContain('***');
    expect(results[1]).toContain('admin token: ***');
    for (const result of results) expect(result).not.toContain(secret.slice(0, 12));
    // The output file the runtime writes for a tool that streams none is masked too.
    const read = run.toolCalls[1]!;
    const stored = harness.runtime.readOutput({ toolCallId: read.id, offset: 0, limit: 1000 });
    expect(stored.text).toMatch(/\nadmin token: \*\*\*\n$/);
    expect(stored.text).not.toContain(secret.slice(0, 12));
  });
});
