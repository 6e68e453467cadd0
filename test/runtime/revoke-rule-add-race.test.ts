// A `policy.rule_add` in flight when its device is revoked. addRule checks the rule again
// with an await (policy reads the files) before its transaction; a revocation committed
// meanwhile removed the device's rules, and the add then stored one more, by the revoked
// device, which kept deciding what runs unasked. The policy below holds the add at that
// await until the revocation has committed: the interleaving is fixed, not timed.
import { describe, expect, it } from 'vitest';
import { PolicyConfig } from '../../host/policy/index.js';
import { decidePolicy } from '../../host/policy/testing.js';
import type { PolicyDecision } from '../../host/policy/index.js';
import { readOnlyTools, type ToolDefinition } from '../../host/tools/index.js';
import { createRunCommandTool } from '../../host/tools/testing.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { commandId, startHarness } from './harness.js';
import { machineSandbox, machineSandboxStatus } from '../support/sandbox.js';

const VICTIM = 'victimDeviceId00000000';
const OTHER = 'otherDeviceId000000000';
const policy = PolicyConfig.parse({});

describe('a rule added while its device is revoked', () => {
  it('is not stored once the revocation has committed', async () => {
    let gate: Promise<void> | null = null;
    let reachedGate = () => {};
    const atGate = new Promise<void>((resolve) => (reachedGate = resolve));
    await using harness = await startHarness({
      runtime: {
        tools: [
          ...readOnlyTools,
          createRunCommandTool({ sandbox: machineSandbox() }),
        ] as ToolDefinition<unknown>[],
        policy: async (call, workspace, addedRules): Promise<PolicyDecision> => {
          const decision = await decidePolicy(call, {
            workspace,
            policy,
            homedir: '/nonexistent-home',
            sandbox: machineSandboxStatus,
            addedRules,
          });
          if (gate !== null) {
            reachedGate();
            await gate;
          }
          return decision;
        },
      },
    });
    const { store, runtime } = harness;
    for (const [deviceId, name] of [
      [VICTIM, 'Lost iPhone'],
      [OTHER, 'iPad'],
    ] as const) {
      store.write(() =>
        store.devices.upsert({
          deviceId,
          devicePk: new Uint8Array(32).fill(1),
          name,
          platform: 'ios',
          pairedAt: 1,
          lastSeenAt: null,
          revokedAt: null,
        }),
      );
    }
    harness.model.push(
      toolCallTurn([{ id: 'c', name: 'run_command', arguments: '{"command":"ls -a src"}' }]),
      textTurn('done'),
    );
    const { runId } = runtime.submit({ commandId: commandId(), input: { text: 'ls' } }, VICTIM);
    await runtime.whenIdle();
    const approval = runtime.getRun(runId).approvals[0]!;
    expect(approval.preview).toMatchObject({ ruleProposal: { offered: true } });

    let release = () => {};
    gate = new Promise((resolve) => (release = resolve));
    const adding = runtime.addRule(
      {
        commandId: commandId(),
        approvalId: approval.id,
        toolCallId: approval.toolCallId,
        inputDigest: approval.inputDigest,
      },
      VICTIM,
    );
    // The add is inside its policy check; the revocation commits now.
    await atGate;
    runtime.devices.revoke({ commandId: commandId(), deviceId: VICTIM }, OTHER);
    gate = null;
    release();
    await expect(adding).rejects.toMatchObject({
      code: 'device_revoked',
      message: 'this device was revoked; it adds no rule',
    });
    await runtime.whenIdle();

    expect(store.allowRules.active().filter((rule) => rule.addedBy === VICTIM)).toEqual([]);
    expect(store.tools.getApproval(approval.id)?.state).not.toBe('approved');
  });
});
