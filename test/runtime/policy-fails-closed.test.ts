/**
 * Only an explicit `allow` runs a call unasked: a policy decision of any other value (as
 * an MCP tool named `constructor` once got from a settings lookup, a function, not a
 * decision) asks, before the call is proposed and again just before it runs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PolicyDecision } from '../../host/policy/index.js';
import { readOnlyTools, type ToolDefinition } from '../../host/tools/index.js';
import { createRunCommandTool } from '../../host/tools/testing.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { commandId, startHarness } from './harness.js';
import { machineSandbox } from '../support/sandbox.js';

const tools = [
  ...readOnlyTools,
  createRunCommandTool({ sandbox: machineSandbox() }),
] as ToolDefinition<unknown>[];

describe('policy decisions fail closed', () => {
  it('a decision that is neither allow, ask nor deny asks, and nothing runs', async () => {
    await using harness = await startHarness({
      runtime: {
        tools,
        // What `settings['constructor']` is on a plain object: a function, not a decision.
        policy: () =>
          Promise.resolve({ decision: Object, reason: 'no setting' } as unknown as PolicyDecision),
      },
    });
    harness.model.push(
      toolCallTurn([{ id: 'c', name: 'run_command', arguments: '{"command":"touch ran"}' }]),
      textTurn('done'),
    );
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'run it' } },
      'dev',
    );
    await harness.runtime.whenIdle();
    const run = harness.runtime.getRun(runId);
    expect(run.toolCalls.map((call) => call.state)).toEqual(['waiting_for_approval']);
    expect(run.approvals).toHaveLength(1);
    expect(existsSync(join(harness.workspace, 'ran'))).toBe(false);
  });
});
