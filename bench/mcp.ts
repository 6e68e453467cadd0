/**
 * MCP servers: the time and the host's RSS to start 5 stdio servers (the SDK-written test
 * server, each its own process group) until every one is connected with its tools listed,
 * outside the OS sandbox and in it (bubblewrap or Seatbelt, no network, the checkout
 * readable), each twice in turn;
 * then the per-call cost of an allowed MCP tool (`mcp__s0__echo`: input validated, sent,
 * answered) next to the built-in read_file on a small file, both through the tool's
 * `execute` as the runtime calls it, medians of the same run.
 *
 *   npm run bench:mcp
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineSandbox } from '../host/cli/machine-sandbox.js';
import { createLogger, type Logger } from '../host/log/index.js';
import { McpServers } from '../host/mcp/index.js';
import type { McpServerSpec } from '../host/mcp/types.js';
import { PolicyConfig } from '../host/policy/index.js';
import { readOnlyTools, type ToolContext } from '../host/tools/index.js';

const SERVERS = 5;
const CALLS = 300;
const MiB = 1024 * 1024;
const server = new URL('../../test/mcp/servers/scripted-mcp-server.js', import.meta.url).pathname;
/** The checkout: the test server and the SDK it loads, which a sandboxed server must read. */
const checkout = realpathSync(new URL('../..', import.meta.url).pathname);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The servers' specs: in the OS sandbox (reading this checkout) or outside it. */
function specs(sandboxed: boolean): McpServerSpec[] {
  return Array.from({ length: SERVERS }, (_, i) => ({
    name: `s${i}`,
    transport: 'stdio' as const,
    command: process.execPath,
    args: [server],
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    sandbox: sandboxed ? { writable: [], readable: [checkout], network: [] } : null,
    policy: 'allow' as const,
    tools: {},
    trustHints: false,
    callTimeoutMs: 10_000,
  }));
}

async function round(sandboxed: boolean, workspace: string, log: Logger): Promise<void> {
  const where = sandboxed ? 'in the sandbox' : 'outside the sandbox';
  const groups: { pgid: number; server: string; startedAt: number }[] = [];
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const mcp = new McpServers(specs(sandboxed), {
    log,
    sandbox: machineSandbox({
      policy: PolicyConfig.parse({}),
      home: homedir(),
      hostPaths: [],
      platform: process.platform,
      searchPath: process.env['PATH'] ?? '',
    }),
    version: 'bench',
    groups: {
      list: () => [...groups],
      add: (group) => groups.push(group),
      remove: (pgid) =>
        groups.splice(
          groups.findIndex((group) => group.pgid === pgid),
          1,
        ),
    },
  });
  const ready = new Promise<void>((resolve) => {
    const check = () => {
      if (mcp.servers().every((entry) => entry.state === 'connected')) resolve();
    };
    mcp.onChange(check);
  });
  await mcp.start();
  await ready;
  const startMs = performance.now() - started;
  const rssAfter = process.memoryUsage().rss;
  console.log(
    `${where}: start ${SERVERS} stdio MCP servers: ${startMs.toFixed(0)} ms until all connected`,
  );
  console.log(
    `  host RSS: ${(rssBefore / MiB).toFixed(1)} MiB before, ${(rssAfter / MiB).toFixed(1)} MiB after (+${((rssAfter - rssBefore) / MiB).toFixed(1)} MiB; the servers' own processes not counted)`,
  );

  const ctx: ToolContext = { workspace, signal: new AbortController().signal };
  const echo = mcp.get('mcp__s0__echo');
  const readFile = readOnlyTools.find((tool) => tool.name === 'read_file');
  if (echo === undefined || readFile === undefined) throw new Error('tools missing');
  const timed = async (run: () => Promise<unknown>): Promise<number[]> => {
    const times: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const t0 = performance.now();
      await run();
      times.push(performance.now() - t0);
    }
    return times;
  };
  const mcpInput = echo.input.parse({ text: 'hi' });
  const builtInInput = readFile.input.parse({ path: 'a.txt' });
  // Warm both paths first, then measure each in turn.
  await timed(() => echo.execute(mcpInput, ctx));
  await timed(() => readFile.execute(builtInInput, ctx));
  const mcpMs = median(await timed(() => echo.execute(echo.input.parse({ text: 'hi' }), ctx)));
  const builtInMs = median(
    await timed(() => readFile.execute(readFile.input.parse({ path: 'a.txt' }), ctx)),
  );
  console.log(
    `  per call (median of ${CALLS}): mcp__s0__echo ${mcpMs.toFixed(3)} ms, read_file ${builtInMs.toFixed(3)} ms (${(mcpMs / builtInMs).toFixed(1)}x; overhead ${(mcpMs - builtInMs).toFixed(3)} ms)`,
  );
  await mcp.stop();
}

async function main(): Promise<void> {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-mcp-')));
  writeFileSync(join(workspace, 'a.txt'), 'hello\n');
  const log = createLogger({ level: 'error' });
  // The SDK loads on the first connect: loaded here, so neither round pays for it.
  await import('../host/mcp/mcp-sdk.js');
  // Each twice, alternating: the second pair shows what a warm machine gives.
  for (const sandboxed of [false, true, false, true]) await round(sandboxed, workspace, log);
  rmSync(workspace, { recursive: true, force: true });
  log.close();
}

await main();
