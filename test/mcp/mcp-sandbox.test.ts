/**
 * A stdio MCP server runs inside the OS sandbox (real bubblewrap here, the SDK-written test
 * server, its config read as the host reads it): it changes only its own folder and its
 * `writable` paths, cannot read the secret set, reaches only the hosts its `network`
 * names, and leaves no folder behind, however deep; `sandbox: false` runs it with the
 * host's rights, and says so. From the attack review: a `cwd` through a link, folders past
 * the secret walk's limit, and a machine without a sandbox, where its allowed tools ask.
 */
import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../host/log/index.js';
import { McpConfig, McpServers, resolveMcpServers } from '../../host/mcp/index.js';
import { PolicyConfig, sandboxSecrets } from '../../host/policy/index.js';
import { Sandbox } from '../../host/sandbox/index.js';
import type { McpServerSandbox } from '../../host/mcp/types.js';
import { machineSandbox, machineSandboxStatus } from '../support/sandbox.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';

const root = new URL('../../', import.meta.url).pathname;
const scripted = join(root, 'test/mcp/servers/scripted-mcp-server.js');

let dir: TempDir;
let listener: Server;
let port: number;
let running: McpServers | null = null;

beforeAll(async () => {
  listener = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => listener.close(resolve)));
afterEach(async () => {
  await running?.stop();
  running = null;
  dir?.remove();
});

/**
 * A started server `name` with the sandbox `sandboxIn` gives for the test's folder (which
 * holds `home` with an SSH key, `writable` and `other`).
 */
async function started(
  name: string,
  sandboxIn: (folder: string) => McpServerSandbox | null,
  options: { maxEntries?: number; cwd?: (folder: string) => string } = {},
) {
  dir = tempDir('tether-mcp-sandbox-');
  const home = join(dir.path, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
  mkdirSync(join(dir.path, 'writable'));
  mkdirSync(join(dir.path, 'other'));
  // From the config, as the host reads it: paths made real, cwd readable.
  const allowed = sandboxIn(dir.path);
  const config = McpConfig.parse({
    servers: {
      [name]: {
        command: process.execPath,
        args: [scripted],
        policy: 'allow',
        callTimeoutMs: 10_000,
        ...(options.cwd === undefined ? {} : { cwd: options.cwd(dir.path) }),
        ...(allowed === null ? { sandbox: false } : allowed),
      },
    },
  });
  const { servers: specs } = await resolveMcpServers(config, {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home },
    readFile: () => null,
    readKeychain: null,
  });
  running = new McpServers(specs, {
    log: createLogger({ level: 'error' }),
    sandbox:
      options.maxEntries === undefined
        ? machineSandbox(home)
        : new Sandbox(
            machineSandboxStatus,
            (workspace) => sandboxSecrets(PolicyConfig.parse({}), workspace, home, []),
            home,
            options.maxEntries,
          ),
    groups: { list: () => [], add: () => {}, remove: () => {} },
    version: 'test',
    limits: { restartInitialMs: 50 },
  });
  const servers = running;
  await servers.start();
  await until(`${name} connected or failed`, () =>
    ['connected', 'restarting', 'failed'].includes(servers.servers()[0]?.state ?? '')
      ? true
      : undefined,
  );
  const probe = async (input: Record<string, string | number>): Promise<Record<string, string>> => {
    const tool = servers.get(`mcp__${name}__probe`);
    if (tool === undefined) throw new Error('no probe tool');
    const ctx = { workspace: dir.path, signal: new AbortController().signal };
    const result = await tool.execute(tool.input.parse(input), ctx);
    expect(result.status).toBe('succeeded');
    return z.record(z.string(), z.string()).parse(JSON.parse(result.content));
  };
  return { servers, home, probe };
}

describe.runIf(machineSandboxStatus.available)('an MCP server in the sandbox', () => {
  it('changes only its own folder and its writable paths, and cannot read a secret', async () => {
    const { servers, home, probe } = await started('fs', () => ({
      writable: [],
      readable: [root],
      network: [],
    }));
    expect(servers.servers()[0]?.sandbox).toEqual({
      contained: true,
      kind: machineSandboxStatus.available ? machineSandboxStatus.kind : '',
      writable: [],
      network: false,
    });
    const outcome = await probe({
      read: join(home, '.ssh', 'id_ed25519'),
      write: join(dir.path, 'other', 'escaped.txt'),
    });
    expect(outcome['read']).not.toBe('ok');
    expect(outcome['write']).not.toBe('ok');
    expect(existsSync(join(dir.path, 'other', 'escaped.txt'))).toBe(false);
    // Its own folder, where it starts: writable, and gone once it stops.
    const own = String(outcome['cwd']);
    expect(await probe({ write: join(own, 'state.txt') })).toMatchObject({ write: 'ok' });
    await servers.stop();
    running = null;
    expect(existsSync(own)).toBe(false);
  });

  it('changes a folder its config lists', async () => {
    const { probe } = await started('w', (folder) => ({
      writable: [join(folder, 'writable')],
      readable: [root],
      network: [],
    }));
    const target = join(dir.path, 'writable', 'made.txt');
    expect(await probe({ write: target })).toMatchObject({ write: 'ok' });
    expect(readFileSync(target, 'utf8')).toBe('probe\n');
  });

  it('reaches only the hosts its network lists, through the host proxy', async () => {
    const { servers, probe } = await started('net', () => ({
      writable: [],
      readable: [root],
      network: [`localhost:${port}`],
    }));
    expect(servers.servers()[0]?.sandbox).toMatchObject({
      network: true,
      networkHosts: [`localhost:${port}`],
    });
    expect(
      await probe({
        tunnel: `localhost:${port}`,
        connect: `127.0.0.1:${port}`,
      }),
    ).toMatchObject({ tunnel: '200', connect: 'ECONNREFUSED' });
    expect(await probe({ tunnel: `127.0.0.1:${port}` })).toMatchObject({ tunnel: '403' });
    // The refusal is a line of its stderr: the error of a server that then dies says it.
    const crash = servers.get('mcp__net__crash');
    await crash?.execute({}, { workspace: dir.path, signal: new AbortController().signal });
    const lastError = await until('the crash reported', () => servers.servers()[0]?.lastError);
    expect(lastError).toContain(
      `its last line on stderr: tether: refused a connection to 127.0.0.1:${port}, not in mcp.servers.net.network`,
    );
  });

  it('with sandbox: false, runs with the host rights and says so', async () => {
    const { servers, probe } = await started('free', () => null);
    expect(servers.servers()[0]?.sandbox).toEqual({
      contained: false,
      reason: 'mcp.servers.free.sandbox is false',
    });
    const target = join(dir.path, 'other', 'written.txt');
    expect(await probe({ write: target, connect: `127.0.0.1:${port}` })).toMatchObject({
      write: 'ok',
      connect: 'ok',
    });
  });

  it('removes its folder at the stop, even nested past what a path can name', async () => {
    const { servers, probe } = await started('deep', () => ({
      writable: [],
      readable: [root],
      network: [],
    }));
    const outcome = await probe({ nest: 1200 });
    expect(outcome).toMatchObject({ nest: 'ok' });
    await servers.stop();
    running = null;
    expect(existsSync(String(outcome['cwd']))).toBe(false);
  });

  it('starts in its cwd through a link, at the real path', async () => {
    const { probe } = await started(
      'linked',
      () => ({ writable: [], readable: [root], network: [] }),
      {
        cwd: (folder) => {
          symlinkSync(join(folder, 'other'), join(folder, 'link'));
          return join(folder, 'link');
        },
      },
    );
    expect((await probe({})).cwd).toBe(realpathSync(join(dir.path, 'other')));
  });

  it('does not start when its folders hold too many files to look for secrets in', async () => {
    const { servers } = await started(
      'big',
      (folder) => {
        for (let i = 0; i < 20; i++) writeFileSync(join(folder, 'writable', `f${i}`), '');
        return { writable: [join(folder, 'writable')], readable: [root], network: [] };
      },
      { maxEntries: 10 },
    );
    const lastError = await until('the refusal', () => servers.servers()[0]?.lastError);
    expect(lastError).toContain('hold too many files to look for secrets in');
    expect(servers.servers()[0]?.state).not.toBe('connected');
  });
});

describe('an MCP server meant for the sandbox on a machine without one', () => {
  const status = { available: false as const, reason: 'bwrap is not installed', fix: 'install it' };
  const servers = (sandbox: McpServerSandbox | null) =>
    new McpServers(
      [
        {
          name: 'srv',
          transport: 'stdio',
          command: 'true',
          args: [],
          env: {},
          sandbox,
          policy: 'allow',
          tools: {},
          trustHints: false,
          callTimeoutMs: 1_000,
        },
      ],
      {
        log: createLogger({ level: 'error' }),
        sandbox: new Sandbox(status, () => Promise.reject(new Error('no sandbox')), '/home/u'),
        groups: { list: () => [], add: () => {}, remove: () => {} },
        version: 'test',
      },
    );

  it('asks where its config allows, and says why', () => {
    expect(servers({ writable: [], readable: [] }).decide('mcp__srv__echo')).toEqual({
      decision: 'ask',
      reason:
        'the config says allow for every tool of MCP server srv, but no sandbox can run here (bwrap is not installed), so MCP server srv runs with full access and its tools ask first',
    });
    expect(servers({ writable: [], readable: [] }).servers()[0]?.sandbox).toEqual({
      contained: false,
      reason: 'bwrap is not installed',
    });
  });

  it('allows as configured when its config says sandbox: false', () => {
    expect(servers(null).decide('mcp__srv__echo')).toMatchObject({ decision: 'allow' });
  });
});
