/**
 * An ACP agent's process as the host starts it (host/agents/agent-process.ts), a real child
 * inside this machine's sandbox: what the host keeps of its stderr stays bounded whatever
 * the agent writes there.
 */
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentProcess } from '../../host/agents/agent-process.js';
import { PolicyConfig, sandboxSecrets } from '../../host/policy/index.js';
import { Sandbox } from '../../host/sandbox/index.js';
import { machineSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';

/** An agent that runs `script`, then waits to be stopped. */
async function startAgent(
  workspace: string,
  script: string,
  network?: readonly string[],
  sandbox = machineSandbox(),
): Promise<AgentProcess> {
  return AgentProcess.start({
    spec: {
      name: 'flood',
      command: process.execPath,
      args: ['-e', `${script}; setInterval(() => undefined, 1000);`],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      writable: [],
      readable: [],
      ...(network === undefined ? {} : { network }),
    },
    workspace,
    sandbox,
    onGroup: () => undefined,
  });
}

describe("an ACP agent's stderr", () => {
  it('a line that never ends is cut at 500 characters as it comes, not held whole', async () => {
    await using workspace = tempDir('tether-agent-process-');
    // 64 MiB on one line that never ends: the host keeps its first 500 characters.
    const agent = await startAgent(
      workspace.path,
      "const b = 'e'.repeat(1 << 20); let n = 0; const more = () => { if (n++ < 64) process.stderr.write(b, more); }; more()",
    );
    try {
      const line = await until('the cut line in the tail', () => agent.stderrTail().at(-1), {
        timeout: 60_000,
      });
      expect(line).toBe(`${'e'.repeat(500)}…`);
      expect(agent.gone).toBe(false);
    } finally {
      await agent.stop(2_000);
    }
  }, 90_000);

  it('after a cut line, the next lines are kept as they are', async () => {
    await using workspace = tempDir('tether-agent-process-');
    const agent = await startAgent(
      workspace.path,
      "process.stderr.write('x'.repeat(2000) + 'tail of the long line\\nnext line\\nlast line\\n')",
    );
    try {
      const tail = await until(
        'three lines',
        () => agent.stderrTail(),
        (lines) => lines.length >= 3,
        {
          timeout: 60_000,
        },
      );
      expect(tail).toEqual([`${'x'.repeat(500)}…`, 'next line', 'last line']);
    } finally {
      await agent.stop(2_000);
    }
  }, 90_000);

  it('a connection the proxy refused is a line of its stderr, naming the setting', async () => {
    await using workspace = tempDir('tether-agent-process-');
    // CONNECT to a host not in its list, through the proxy its environment names.
    const agent = await startAgent(
      workspace.path,
      "const p = new URL(process.env.HTTPS_PROXY); require('node:net').connect(Number(p.port), p.hostname).on('connect', function () { this.write('CONNECT evil.example:443 HTTP/1.1\\r\\n\\r\\n'); }).on('data', (d) => process.stderr.write(String(d).split('\\r\\n')[0] + '\\n'))",
      ['api.anthropic.com'],
    );
    try {
      const tail = await until(
        'the refusal and the answer',
        () => agent.stderrTail(),
        (lines) => lines.length >= 2,
        { timeout: 60_000 },
      );
      expect(tail.toSorted()).toEqual([
        'HTTP/1.1 403 Forbidden',
        'tether: refused a connection to evil.example:443, not in agents.flood.network',
      ]);
    } finally {
      await agent.stop(2_000);
    }
  }, 90_000);

  it('says when the look for secrets stopped at its limit in its folders', async () => {
    await using workspace = tempDir('tether-agent-process-');
    for (let i = 0; i < 20; i++) writeFileSync(join(workspace.path, `f${i}`), '');
    const machine = machineSandbox();
    const small = new Sandbox(
      machine.status,
      (folder) => sandboxSecrets(PolicyConfig.parse({}), folder, homedir(), []),
      homedir(),
      10,
    );
    const agent = await startAgent(workspace.path, 'undefined', undefined, small);
    try {
      expect(agent.stderrTail()).toEqual([
        'tether: the look for secrets stopped at its limit in the folders of agents.flood: secrets past it are not hidden from the agent',
      ]);
    } finally {
      await agent.stop(2_000);
    }
  });
});
