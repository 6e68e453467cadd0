/**
 * MCP servers against the real host process: the third-party reference server
 * (`@modelcontextprotocol/server-everything`, stdio) for the path a user takes, a server
 * written here with the SDK (servers/scripted-mcp-server.js) for the failures, and one
 * over streamable HTTP (the SDK's server transport, in this process) for that transport.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { groupAlive, startFaultHost, type FaultHost } from '../support/fault-host.js';
import { proposeCall, untilApproval, untilIdle } from '../support/fault-host-runs.js';
import { tempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';

const root = new URL('../../', import.meta.url).pathname;
const everything = join(root, 'node_modules/.bin/mcp-server-everything');
const scripted = join(root, 'test/mcp/servers/scripted-mcp-server.js');

const ServerInfo = z.object({
  name: z.string(),
  transport: z.string(),
  state: z.string(),
  tools: z.array(z.string()),
  lastError: z.string().optional(),
  sandbox: z.unknown().optional(),
});

async function serversOf(host: FaultHost) {
  const info = await host.channel.call('host.info', {});
  return z.array(ServerInfo).parse(info['mcpServers']);
}

async function connected(host: FaultHost, name: string, tool?: string) {
  return until(`MCP server ${name} connected${tool ? ` with ${tool}` : ''}`, async () => {
    const server = (await serversOf(host)).find((entry) => entry.name === name);
    if (server?.state !== 'connected') return undefined;
    return tool === undefined || server.tools.includes(tool) ? server : undefined;
  });
}

interface CallRow {
  id: string;
  state: string;
  result: { error?: { code: string; message: string } } | null;
  modelContent: string | null;
}

function callOf(host: FaultHost, runId: string): CallRow {
  const row = host.query(
    (db) =>
      db
        .prepare('SELECT id, state, result_json, model_content FROM tool_calls WHERE run_id = ?')
        .get(runId) as {
        id: string;
        state: string;
        result_json: string | null;
        model_content: string | null;
      },
  );
  const result =
    row.result_json === null
      ? null
      : z
          .looseObject({
            error: z.object({ code: z.string(), message: z.string() }).optional(),
          })
          .parse(JSON.parse(row.result_json));
  return { id: row.id, state: row.state, result, modelContent: row.model_content };
}

/** The `content` of the tool message the model was sent last. */
function lastToolMessage(host: FaultHost): string {
  const bodies = host.model.chatBodies();
  const messages = z
    .array(z.looseObject({ role: z.string(), content: z.unknown() }))
    .parse(bodies.at(-1)?.['messages']);
  return String(messages.filter((message) => message.role === 'tool').at(-1)?.content);
}

function offeredTools(host: FaultHost, request: number): string[] {
  const tools = z
    .array(z.object({ function: z.object({ name: z.string() }) }))
    .parse(host.model.chatBodies()[request]?.['tools'] ?? []);
  return tools.map((tool) => tool.function.name);
}

describe('a third-party MCP server (server-everything, stdio)', () => {
  let host: FaultHost;
  beforeAll(async () => {
    host = await startFaultHost({
      config: {
        mcp: {
          servers: {
            // In the sandbox, as by default: it reads its program from this checkout.
            everything: {
              command: everything,
              args: ['stdio'],
              tools: { 'get-env': 'deny' },
              readable: [root],
            },
          },
        },
      },
    });
    await connected(host, 'everything', 'mcp__everything__echo');
  });
  // A graceful stop ends the server's process group; dispose's SIGKILL would leave it.
  afterAll(async () => {
    await host.host.stop();
    await host.dispose();
  });

  it('runs in the sandbox, and host.info says what it may touch', async () => {
    const server = (await serversOf(host)).find((entry) => entry.name === 'everything');
    expect(server?.sandbox).toEqual({
      contained: true,
      kind: 'bwrap',
      writable: [],
      network: true,
    });
  });

  it('offers its tools; a call asks, is approved from a remote, and returns its text', async () => {
    const runId = await proposeCall(host, 'mcp__everything__echo', { message: 'hello over MCP' });
    const approval = await untilApproval(host, runId);
    expect(offeredTools(host, 0)).toEqual(
      expect.arrayContaining([
        'read_file',
        'run_command',
        'mcp__everything__echo',
        'mcp__everything__get-sum',
      ]),
    );
    // The server says echo only reads; without trustHints that allows nothing.
    expect(approval.preview).toMatchObject({
      kind: 'mcp',
      server: 'everything',
      tool: 'echo',
      readOnlyHint: true,
    });
    expect(approval.reason).toContain('echo of MCP server everything');
    await host.channel.call('approval.respond', {
      commandId: randomUUID(),
      approvalId: approval.id,
      toolCallId: approval.toolCallId,
      inputDigest: approval.inputDigest,
      decision: 'approve',
    });
    await untilIdle(host, runId);
    expect(callOf(host, runId).state).toBe('succeeded');
    expect(lastToolMessage(host)).toContain('hello over MCP');
  });

  it('a tool the config denies reaches the model as a refusal, and the server is never asked', async () => {
    const runId = await proposeCall(host, 'mcp__everything__get-env', {});
    await untilIdle(host, runId);
    const call = callOf(host, runId);
    expect(call).toMatchObject({
      state: 'failed',
      result: { error: { code: 'permission_denied' } },
    });
    expect(lastToolMessage(host)).toContain('permission_denied');
    // get-env would have listed the server's environment: nothing of it reached the model.
    expect(lastToolMessage(host)).not.toContain('PATH');
  });
});

describe('an MCP server written with the SDK: failures', () => {
  let host: FaultHost;
  const calls = tempDir('tether-mcp-calls-');
  const callsFile = join(calls.path, 'calls.jsonl');
  const received = () =>
    existsSync(callsFile)
      ? readFileSync(callsFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => z.object({ tool: z.string(), pid: z.number() }).parse(JSON.parse(line)))
      : [];

  beforeAll(async () => {
    host = await startFaultHost({
      config: {
        mcp: {
          servers: {
            scripted: {
              command: process.execPath,
              args: [scripted],
              env: { MCP_CALLS_FILE: callsFile },
              // Outside the sandbox: these cases compare its process ids and outlive a
              // killed host, which bubblewrap's own PID namespace would not let them do
              // (test/mcp/mcp-sandbox.test.ts has the sandbox).
              sandbox: false,
              policy: 'allow',
              tools: { fail: 'allow' },
            },
          },
        },
      },
    });
    await connected(host, 'scripted', 'mcp__scripted__echo');
  });
  afterAll(async () => {
    await host.host.stop();
    await host.dispose();
    calls.remove();
  });

  it('invalid input is refused before the server: the model is told why', async () => {
    const runId = await proposeCall(host, 'mcp__scripted__echo', { text: 'x'.repeat(101) });
    await untilIdle(host, runId);
    expect(callOf(host, runId)).toMatchObject({
      state: 'failed',
      result: { error: { code: 'invalid_input' } },
    });
    expect(lastToolMessage(host)).toMatch(/invalid input for mcp__scripted__echo.*100/);
    expect(received().filter((call) => call.tool === 'echo')).toEqual([]);
  });

  it('isError is a tool failure the model sees', async () => {
    const runId = await proposeCall(host, 'mcp__scripted__fail', {});
    await untilIdle(host, runId);
    expect(callOf(host, runId)).toMatchObject({
      state: 'failed',
      result: { error: { code: 'tool_error' } },
    });
    expect(lastToolMessage(host)).toContain('it broke: the disk is on fire');
  });

  it('tools/list_changed refreshes the tools offered to the next turn', async () => {
    const before = host.model.chatBodies().length;
    const runId = await proposeCall(host, 'mcp__scripted__add_tool', {});
    await untilIdle(host, runId);
    expect(offeredTools(host, before)).not.toContain('mcp__scripted__late_tool');
    await connected(host, 'scripted', 'mcp__scripted__late_tool');
    const next = host.model.chatBodies().length;
    const late = await proposeCall(host, 'mcp__scripted__late_tool', {});
    await untilIdle(host, late);
    expect(offeredTools(host, next)).toContain('mcp__scripted__late_tool');
    expect(callOf(host, late).state).toBe('succeeded');
  });

  it('the server crashing mid-call leaves the call unknown, never re-sent, and it is restarted', async () => {
    const first = received().at(-1)?.pid;
    const runId = await proposeCall(host, 'mcp__scripted__crash', {});
    await untilIdle(host, runId);
    const call = callOf(host, runId);
    expect(call.state).toBe('unknown');
    expect(call.modelContent).toContain('may or may not have taken effect');
    const server = await until('the server restarted', async () => {
      const entry = (await serversOf(host)).find((candidate) => candidate.name === 'scripted');
      return entry?.state === 'connected' ? entry : undefined;
    });
    expect(server.lastError).toContain('closed');
    expect(received().filter((entry) => entry.tool === 'crash')).toHaveLength(1);
    expect(received().find((entry) => entry.tool === 'crash')?.pid).toBe(first);
    // The new server answers.
    const after = await proposeCall(host, 'mcp__scripted__echo', { text: 'again' });
    await untilIdle(host, after);
    expect(lastToolMessage(host)).toContain('echo: again');
    expect(received().at(-1)?.pid).not.toBe(first);
  });

  it('a SIGKILLed host leaves its server group, and the next start kills it', async () => {
    await connected(host, 'scripted');
    const groups = host.query(
      (db) => db.prepare('SELECT pgid FROM mcp_server_groups').all() as { pgid: number }[],
    );
    expect(groups).toHaveLength(1);
    const pgid = groups[0]?.pgid ?? 0;
    expect(groupAlive(pgid)).toBe(true);
    await host.host.kill();
    // The server's sleep child keeps the group alive without the host.
    expect(groupAlive(pgid)).toBe(true);
    await host.restartClean();
    await until(`group ${pgid} gone`, () => (groupAlive(pgid) ? undefined : true));
    await connected(host, 'scripted');
    const now = host.query(
      (db) => db.prepare('SELECT pgid FROM mcp_server_groups').all() as { pgid: number }[],
    );
    expect(now.map((row) => row.pgid)).not.toContain(pgid);
  });
});

/**
 * A stateless streamable-HTTP MCP server, a fresh SDK server for each request as the SDK's
 * stateless example has it: `echo`, and `flood`, whose answer (20 MB of text in one
 * message) is past what the host reads from a server.
 */
async function startHttpMcpServer(): Promise<{
  url: string;
  headers: IncomingHttpHeaders[];
  close(): Promise<void>;
}> {
  const headers: IncomingHttpHeaders[] = [];
  const http: Server = createServer((request, response) => {
    headers.push(request.headers);
    const server = new McpServer({ name: 'http-test-server', version: '1.0.0' });
    server.registerTool(
      'echo',
      { description: 'Echoes the text back.', inputSchema: { text: z.string().max(100) } },
      (args) => ({ content: [{ type: 'text', text: `echo over http: ${args.text}` }] }),
    );
    server.registerTool('flood', { description: 'Answers 20 MB.' }, () => ({
      content: [{ type: 'text', text: 'f'.repeat(20 * 1024 * 1024) }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    void server
      .connect(transport)
      .then(() => transport.handleRequest(request, response))
      .catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

describe('an MCP server over streamable HTTP', () => {
  let host: FaultHost;
  let web: Awaited<ReturnType<typeof startHttpMcpServer>>;
  beforeAll(async () => {
    web = await startHttpMcpServer();
    host = await startFaultHost({
      config: {
        mcp: {
          servers: {
            web: {
              url: web.url,
              headers: { Authorization: 'Bearer plain-web-token-0123456789' },
              policy: 'allow',
              callTimeoutMs: 10_000,
            },
          },
        },
      },
    });
    await connected(host, 'web', 'mcp__web__echo');
  });
  afterAll(async () => {
    await host.host.stop();
    await host.dispose();
    await web.close();
  });

  it('offers its tools, sends its headers, and its answer reaches the model', async () => {
    expect((await serversOf(host)).find((entry) => entry.name === 'web')).toMatchObject({
      transport: 'http',
      state: 'connected',
    });
    const runId = await proposeCall(host, 'mcp__web__echo', { text: 'over the wire' });
    await untilIdle(host, runId);
    expect(callOf(host, runId).state).toBe('succeeded');
    expect(lastToolMessage(host)).toContain('echo over http: over the wire');
    expect(web.headers.at(-1)?.['authorization']).toBe('Bearer plain-web-token-0123456789');
  });

  it('an answer past the bound is cut off: the call does not succeed and the host goes on', async () => {
    const runId = await proposeCall(host, 'mcp__web__flood', {});
    await untilIdle(host, runId);
    const call = callOf(host, runId);
    expect(['unknown', 'failed']).toContain(call.state);
    expect(lastToolMessage(host)).not.toContain('ffffffffff');
    await connected(host, 'web', 'mcp__web__echo');
    const after = await proposeCall(host, 'mcp__web__echo', { text: 'still here' });
    await untilIdle(host, after);
    expect(lastToolMessage(host)).toContain('echo over http: still here');
  });
});
