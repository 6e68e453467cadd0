// A rule removed while the policy was deciding a call with it: the decision named the rule
// as it was when the policy read it, but the call must not run on a rule no longer in
// force. The policy below removes the rule itself, after deciding and before answering:
// the interleaving is fixed, not timed. The call is decided again without the rule, and
// asks.
import { describe, expect, it } from 'vitest';
import { PolicyConfig } from '../../host/policy/index.js';
import { decidePolicy } from '../../host/policy/testing.js';
import { readOnlyTools, type ToolDefinition } from '../../host/tools/index.js';
import { createRunCommandTool } from '../../host/tools/testing.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { commandId, startHarness } from './harness.js';
import { machineSandbox, machineSandboxStatus } from '../support/sandbox.js';

const DEVICE = 'phoneDeviceId000000000';
const policy = PolicyConfig.parse({});

describe('a rule removed while the policy decides with it', () => {
  it('does not let the call run: it is decided again without the rule, and asks', async () => {
    let removeDuringDecision: (() => void) | null = null;
    let decisions = 0;
    await using harness = await startHarness({
      runtime: {
        tools: [
          ...readOnlyTools,
          createRunCommandTool({ sandbox: machineSandbox() }),
        ] as ToolDefinition<unknown>[],
        policy: async (call, workspace, addedRules) => {
          decisions += 1;
          const decision = await decidePolicy(call, {
            workspace,
            policy,
            homedir: '/nonexistent-home',
            sandbox: machineSandboxStatus,
            addedRules,
          });
          const remove = removeDuringDecision;
          removeDuringDecision = null;
          remove?.();
          return decision;
        },
      },
    });
    const { store, runtime, workspace } = harness;
    store.write(() =>
      store.devices.upsert({
        deviceId: DEVICE,
        devicePk: new Uint8Array(32).fill(1),
        name: 'iPhone',
        platform: 'ios',
        pairedAt: 1,
        lastSeenAt: null,
        revokedAt: null,
      }),
    );
    store.write(() =>
      store.allowRules.insert({
        id: 'rul_ls',
        workspace,
        words: ['ls', '-a', 'src'],
        addedBy: DEVICE,
        addedByName: 'iPhone',
        addedAt: 1,
        approvalId: 'apr_earlier',
      }),
    );
    removeDuringDecision = () =>
      runtime.removeRule({ commandId: commandId(), ruleId: 'rul_ls' }, DEVICE);
    harness.model.push(
      toolCallTurn([{ id: 'c', name: 'run_command', arguments: '{"command":"ls -a src"}' }]),
      textTurn('done'),
    );

    const { runId } = runtime.submit({ commandId: commandId(), input: { text: 'ls' } }, DEVICE);
    await runtime.whenIdle();

    const run = runtime.getRun(runId);
    expect(store.allowRules.get('rul_ls')?.removedAt).not.toBeNull();
    expect(decisions).toBe(2);
    expect(run.toolCalls.map((call) => call.state)).toEqual(['waiting_for_approval']);
    expect(run.approvals).toHaveLength(1);
    expect(harness.events.some((event) => event.type === 'tool.started')).toBe(false);
  });
});
