// Revoking a device removes the allow rules it added from its approval cards, in the same
// transaction as the revocation, and leaves every other device's rules alone.
import { describe, expect, it } from 'vitest';
import { commandId, startHarness } from './harness.js';

const VICTIM = 'victimDeviceId00000000';
const OTHER = 'otherDeviceId000000000';

describe('revoking a device', () => {
  it('removes the rules it added, records each removal, and only once', async () => {
    await using harness = await startHarness({ withModel: false });
    const { store, runtime, workspace } = harness;
    for (const [deviceId, name] of [
      [VICTIM, 'Lost iPhone'],
      [OTHER, 'iPad'],
    ] as const) {
      store.devices.upsert({
        deviceId,
        devicePk: new Uint8Array(32).fill(1),
        name,
        platform: 'ios',
        pairedAt: 1,
        lastSeenAt: null,
        revokedAt: null,
      });
    }
    const rule = (id: string, addedBy: string, words: string[]) =>
      store.write(() =>
        store.allowRules.insert({
          id,
          workspace,
          words,
          addedBy,
          addedByName: addedBy === VICTIM ? 'Lost iPhone' : 'iPad',
          addedAt: 1,
          approvalId: `apr_${id}`,
        }),
      );
    rule('rul_victim_1', VICTIM, ['ls', '-a', 'src']);
    rule('rul_victim_2', VICTIM, ['git', 'status']);
    rule('rul_other', OTHER, ['git', 'log']);

    runtime.devices.revoke({ commandId: commandId(), deviceId: VICTIM }, OTHER);

    expect(store.allowRules.active().map((r) => r.id)).toEqual(['rul_other']);
    expect(store.allowRules.get('rul_victim_1')).toMatchObject({ removedBy: OTHER });
    const removed = harness.events.filter((event) => event.type === 'policy.rule_removed');
    expect(removed.map((event) => event.payload)).toEqual([
      { ruleId: 'rul_victim_1', rule: ['ls', '-a', 'src'], workspace, by: OTHER },
      { ruleId: 'rul_victim_2', rule: ['git', 'status'], workspace, by: OTHER },
    ]);
    // One transaction: the revocation and the removals share their commit.
    const revoked = harness.events.find((event) => event.type === 'device.revoked')!;
    expect(removed.every((event) => event.at === revoked.at)).toBe(true);

    runtime.devices.revoke({ commandId: commandId(), deviceId: VICTIM }, OTHER);
    expect(harness.events.filter((event) => event.type === 'policy.rule_removed')).toHaveLength(2);
  });
});
