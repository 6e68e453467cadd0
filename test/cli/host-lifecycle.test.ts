/**
 * The order a host starts and stops in (host/cli/host-lifecycle.ts): steps start in order
 * and stop in reverse, and a start that fails stops only what had started.
 */
import { describe, expect, it } from 'vitest';
import { HostLifecycle, type HostStep } from '../../host/cli/host-lifecycle.js';

function steps(names: string[], said: string[], failing?: string): HostStep[] {
  return names.map((name) => ({
    name,
    start: async () => {
      await Promise.resolve();
      if (name === failing) throw new Error(`${name} failed`);
      said.push(`start ${name}`);
    },
    stop: async () => {
      await Promise.resolve();
      said.push(`stop ${name}`);
    },
  }));
}

describe('the host lifecycle', () => {
  it('starts the steps in order, each after the last settled, and stops them in reverse', async () => {
    const said: string[] = [];
    const lifecycle = new HostLifecycle(steps(['store', 'server', 'runtime'], said));
    await lifecycle.start();
    await lifecycle.stop();
    expect(said).toEqual([
      'start store',
      'start server',
      'start runtime',
      'stop runtime',
      'stop server',
      'stop store',
    ]);
  });

  it('stops what had started, in reverse, when a step fails, and throws its error', async () => {
    const said: string[] = [];
    const lifecycle = new HostLifecycle(
      steps(['store', 'server', 'tailnet', 'runtime'], said, 'tailnet'),
    );
    await expect(lifecycle.start()).rejects.toThrow('tailnet failed');
    expect(said).toEqual(['start store', 'start server', 'stop server', 'stop store']);
    // Stopped already: a later stop does nothing more.
    await lifecycle.stop();
    expect(said).toHaveLength(4);
  });
});
