/**
 * An MCP server's error reaches remotes as `lastError` (host.info mcpServers),
 * which no redaction pass sees: the logger masks its own lines only. A server (or whoever
 * answers at its URL) that echoes the token it was sent put it in front of every remote.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, Redactor } from '../../host/log/index.js';
import { McpServers } from '../../host/mcp/index.js';
import { machineSandbox } from '../support/sandbox.js';
import { until } from '../support/wait.js';

const TOKEN = 'ghp_plainEchoedToken0123456789';
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    response.writeHead(401, { 'content-type': 'text/plain' });
    response.end(`bad credentials: ${request.headers['authorization'] ?? ''}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('an MCP server error that echoes its token', () => {
  it('reaches host.info masked', async () => {
    const secrets = new Redactor();
    secrets.register(TOKEN);
    const servers = new McpServers(
      [
        {
          name: 'srv',
          transport: 'http',
          url,
          headers: { Authorization: TOKEN },
          policy: 'ask',
          tools: {},
          trustHints: false,
          callTimeoutMs: 1_000,
        },
      ],
      {
        log: createLogger({ level: 'error' }),
        sandbox: machineSandbox(),
        groups: { list: () => [], add: () => {}, remove: () => {} },
        version: 'test',
        mask: (text) => secrets.foreignText(text),
      },
    );
    void servers.start().catch(() => undefined);
    const lastError = await until('a lastError', () => servers.servers()[0]?.lastError);
    await servers.stop();
    expect(lastError).toContain('bad credentials');
    expect(lastError).not.toContain(TOKEN);
  });
});
