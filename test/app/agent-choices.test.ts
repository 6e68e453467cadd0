/**
 * New task's agents (remote/app/src/logic/agent-choices.ts): `host.info.agents` checked
 * where shown, with a word on an agent that failed last time or runs unsandboxed.
 */
import { describe, expect, it } from 'vitest';
import { agentChoices } from '../../remote/app/src/logic/agent-choices.js';

const contained = { contained: true, kind: 'bwrap', writable: ['/w'], network: true };

describe('agentChoices', () => {
  it('lists each agent of host.info, saying what to know before picking it', () => {
    expect(
      agentChoices([
        { name: 'claude', state: 'idle', sandbox: contained },
        { name: 'codex', state: 'failed', lastError: 'x', sandbox: contained },
        { name: 'loose', state: 'running', sandbox: { contained: false, reason: 'no bwrap' } },
      ]),
    ).toEqual([
      { name: 'claude', label: 'claude' },
      { name: 'codex', label: 'codex (failed last time)' },
      { name: 'loose', label: 'loose (not sandboxed)' },
    ]);
  });

  it('offers none from a host without agents, and skips an entry it cannot read', () => {
    expect(agentChoices(undefined)).toEqual([]);
    expect(agentChoices([{ name: 'x' }, 'y'])).toEqual([]);
  });
});
