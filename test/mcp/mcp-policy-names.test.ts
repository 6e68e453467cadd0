/**
 * Security review: an MCP tool's policy is looked up by the name its server gives it, and
 * a server may name a tool `constructor` or `__proto__`. Such a name must not find
 * Object.prototype's members in the config's `tools` and run unasked: it asks, like any
 * tool the config does not name.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../host/log/index.js';
import { McpServers } from '../../host/mcp/index.js';
import { machineSandbox } from '../support/sandbox.js';

function servers(tools: Record<string, 'allow' | 'ask' | 'deny'> = {}): McpServers {
  return new McpServers(
    [
      {
        name: 'srv',
        transport: 'stdio',
        command: 'true',
        args: [],
        env: {},
        sandbox: null,
        policy: 'ask',
        tools,
        trustHints: false,
        callTimeoutMs: 1_000,
      },
    ],
    {
      log: createLogger({ level: 'error' }),
      sandbox: machineSandbox(),
      groups: { list: () => [], add: () => {}, remove: () => {} },
      version: 'test',
    },
  );
}

describe('MCP tool names that are Object.prototype members', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
    '%s asks',
    (tool) => {
      expect(servers().decide(`mcp__srv__${tool}`)).toMatchObject({ decision: 'ask' });
    },
  );

  it('a tool the config names still gets its setting', () => {
    const tools = Object.fromEntries([['constructor', 'allow' as const]]);
    expect(servers(tools).decide('mcp__srv__constructor')).toMatchObject({ decision: 'allow' });
  });
});
