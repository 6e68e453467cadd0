/**
 * An MCP server written for the tests with the official SDK (stdio), for the failure
 * cases a third-party server cannot be made to show: every call it receives is appended
 * to the file $MCP_CALLS_FILE (one JSON line), `crash` exits in the middle of its call,
 * `add_tool` lists a new tool (the SDK sends tools/list_changed), `fail` answers isError,
 * `peek` says it only reads, `probe` tries to read, write and reach what it is given (what
 * its sandbox lets it do) and can leave folders nested past what a path can name. It starts a `sleep` child in its own process group, so a test
 * sees the whole group, not just the server, go.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const callsFile = process.env['MCP_CALLS_FILE'];

function record(tool, args) {
  if (callsFile) appendFileSync(callsFile, `${JSON.stringify({ tool, args, pid: process.pid })}\n`);
}

const server = new McpServer({ name: 'scripted-mcp-server', version: '1.0.0' });

server.registerTool(
  'echo',
  {
    description: 'Echoes the text back.',
    inputSchema: { text: z.string().max(100) },
  },
  (args) => {
    record('echo', args);
    return { content: [{ type: 'text', text: `echo: ${args.text}` }] };
  },
);

server.registerTool('crash', { description: 'Exits in the middle of the call.' }, (args) => {
  record('crash', args);
  process.exit(3);
});

server.registerTool('fail', { description: 'Answers with isError.' }, (args) => {
  record('fail', args);
  return { isError: true, content: [{ type: 'text', text: 'it broke: the disk is on fire' }] };
});

server.registerTool(
  'peek',
  { description: 'Only reads.', annotations: { readOnlyHint: true } },
  (args) => {
    record('peek', args);
    return { content: [{ type: 'text', text: 'peeked' }] };
  },
);

server.registerTool('add_tool', { description: 'Lists one more tool.' }, (args) => {
  record('add_tool', args);
  server.registerTool('late_tool', { description: 'Listed after add_tool.' }, (late) => {
    record('late_tool', late);
    return { content: [{ type: 'text', text: 'late' }] };
  });
  return { content: [{ type: 'text', text: 'added late_tool' }] };
});

/** What one attempt came to: `ok`, or the error's code. */
function attempt(action) {
  try {
    action();
    return 'ok';
  } catch (error) {
    return error.code ?? String(error);
  }
}

/** A TCP connection straight to `target` (`host:port`): `ok` or the error's code. */
function reach(target) {
  const colon = target.lastIndexOf(':');
  return new Promise((resolve) => {
    const socket = connect({ host: target.slice(0, colon), port: Number(target.slice(colon + 1)) });
    socket.once('connect', () => {
      socket.destroy();
      resolve('ok');
    });
    socket.once('error', (error) => resolve(error.code ?? String(error)));
  });
}

/** `CONNECT target` through $HTTPS_PROXY: the proxy's status code, or the error's code. */
function tunnel(target) {
  const proxy = process.env['HTTPS_PROXY'];
  if (proxy === undefined) return Promise.resolve('no proxy');
  const { hostname, port } = new URL(proxy);
  return new Promise((resolve) => {
    request({ host: hostname, port: Number(port), method: 'CONNECT', path: target })
      .once('connect', (response, socket) => {
        socket.destroy();
        resolve(String(response.statusCode));
      })
      .once('error', (error) => resolve(error.code ?? String(error)))
      .end();
  });
}

server.registerTool(
  'probe',
  {
    description: 'Tries to read, write and reach what it is given.',
    inputSchema: {
      read: z.string().optional(),
      write: z.string().optional(),
      connect: z.string().optional(),
      tunnel: z.string().optional(),
      nest: z.number().int().optional(),
    },
  },
  async (args) => {
    record('probe', args);
    const outcome = { cwd: process.cwd() };
    if (args.read) outcome.read = attempt(() => readFileSync(args.read, 'utf8'));
    if (args.write) outcome.write = attempt(() => writeFileSync(args.write, 'probe\n'));
    if (args.connect) outcome.connect = await reach(args.connect);
    if (args.tunnel) outcome.tunnel = await tunnel(args.tunnel);
    if (args.nest) {
      // Folders nested deeper than a path can name, made one level at a time.
      const start = process.cwd();
      for (let i = 0; i < args.nest; i++) {
        mkdirSync('nested-folder');
        process.chdir('nested-folder');
      }
      process.chdir(start);
      outcome.nest = 'ok';
    }
    return { content: [{ type: 'text', text: JSON.stringify(outcome) }] };
  },
);

// A child in the server's group: it must go when the server's group is stopped or killed.
spawn('sleep', ['1000'], { stdio: 'ignore' });
process.stderr.write(`scripted-mcp-server ${process.pid} ready\n`);
await server.connect(new StdioServerTransport());
