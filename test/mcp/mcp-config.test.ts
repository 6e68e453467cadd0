/**
 * The `mcp` config section: unknown keys and bad values stop the host naming the setting;
 * secrets come from 0600 files (or the Keychain) and never from anywhere looser; a stdio
 * server's environment is the minimal one plus its own `env`.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadHostConfig, redactedConfig } from '../../host/config/index.js';
import { readPrivateFile } from '../../host/identity/index.js';
import { McpConfig, McpSettingsError, resolveMcpServers } from '../../host/mcp/index.js';
import { tempDir } from '../support/temp-dir.js';

function issuesOf(config: unknown): string[] {
  using dir = tempDir('tether-mcp-config-');
  const file = join(dir.path, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  try {
    loadHostConfig({
      argv: ['--config', file, '--data', join(dir.path, 'data'), '--workspace', dir.path],
      env: {},
      cwd: dir.path,
      platform: 'linux',
      homedir: dir.path,
    });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues.map((issue) => `${issue.field}: ${issue.message}`);
  }
  throw new Error('expected a ConfigError');
}

describe('mcp config', () => {
  it('names each bad setting', () => {
    expect(
      issuesOf({
        mcp: {
          servers: {
            a: { command: 'x', colour: 'red' },
            b: { url: 'ftp://x' },
            c: {},
            d: { command: 'x', url: 'http://127.0.0.1:1/mcp' },
            e: { url: 'http://127.0.0.1:1/mcp', env: { A: 'b' } },
            f: { command: 'x', policy: 'maybe', tools: { t: 'sometimes' } },
            g: { command: 'x', env: { TOKEN: { keychain: 'no-slash' } } },
            h: { command: 'x', env: { TOKEN: { file: 'relative/path' } } },
            i: { url: 'http://127.0.0.1:1/mcp', writable: ['/tmp'] },
            j: { command: 'x', sandbox: false, network: ['api.github.com'] },
            k: { command: 'x', sandbox: 'no', writable: ['tmp'], network: ['*.com'] },
            bad_name: { command: 'x' },
          },
          extra: true,
        },
      }),
    ).toEqual(
      expect.arrayContaining([
        'mcp.servers.a.colour: unknown setting',
        'mcp.servers.b.url: expected an http or https URL',
        'mcp.servers.c.command: expected command (a stdio server) or url (a streamable HTTP server)',
        'mcp.servers.d.url: give either command (stdio) or url (streamable HTTP), not both',
        'mcp.servers.e.env: only for a command (stdio) server',
        'mcp.servers.f.policy: expected allow, ask or deny',
        'mcp.servers.f.tools.t: expected allow, ask or deny',
        'mcp.servers.g.env.TOKEN.keychain: expected "service/account"',
        'mcp.servers.h.env.TOKEN.file: expected an absolute path',
        'mcp.servers.i.writable: only for a command (stdio) server',
        'mcp.servers.j.network: only for a server in the sandbox: remove it, or sandbox: false',
        'mcp.servers.k.sandbox: expected true or false',
        'mcp.servers.k.writable[0]: expected an absolute path',
        expect.stringMatching(/^mcp\.servers\.k\.network\[0\]: expected a host name/),
        expect.stringMatching(/^mcp\.servers\.bad_name: expected a server name/),
        'mcp.extra: unknown setting',
      ]),
    );
  });

  it('the start-up log line masks plain env and header values', () => {
    using dir = tempDir('tether-mcp-config-');
    const file = join(dir.path, 'config.json');
    const servers = {
      s: { command: 'x', env: { TOKEN: 'plain-secret-value', KEY: { file: '/k' } } },
      h: { url: 'https://mcp.example.org/mcp', headers: { authorization: 'Bearer abc' } },
    };
    writeFileSync(file, JSON.stringify({ mcp: { servers } }));
    const config = loadHostConfig({
      argv: ['--config', file, '--data', join(dir.path, 'data'), '--workspace', dir.path],
      env: {},
      cwd: dir.path,
      platform: 'linux',
      homedir: dir.path,
    });
    const logged = JSON.stringify(redactedConfig(config));
    expect(logged).not.toContain('plain-secret-value');
    expect(logged).not.toContain('Bearer abc');
    expect(logged).toContain('{"file":"/k"}');
  });
});

describe('mcp secrets and environment', () => {
  const env = {
    PATH: '/usr/bin:/bin',
    HOME: '/home/u',
    OPENAI_API_KEY: 'sk-host',
    AWS_SECRET: 'a',
  };
  // As start-host.ts reads them.
  const readFile = (path: string) =>
    readPrivateFile(
      path,
      (problem) => new Error(`the secret file ${path} ${problem}`),
      (mode) => `has mode ${mode}; make it private: chmod 600 ${path}`,
    );
  const linux = { env, readFile, readKeychain: null };

  it('reads a 0600 file and gives a server only the minimal environment plus its env', async () => {
    using dir = tempDir('tether-mcp-secret-');
    const secret = join(dir.path, 'token');
    writeFileSync(secret, 'tok-123456789\n', { mode: 0o600 });
    const config = McpConfig.parse({
      servers: { s: { command: 'srv', env: { TOKEN: { file: secret }, MODE: 'fast' } } },
    });
    const { servers, secrets } = await resolveMcpServers(config, linux);
    expect(secrets).toEqual(['tok-123456789']);
    expect(servers[0]).toMatchObject({
      transport: 'stdio',
      env: { PATH: '/usr/bin:/bin', HOME: '/home/u', TOKEN: 'tok-123456789', MODE: 'fast' },
    });
    const serverEnv = servers[0]?.transport === 'stdio' ? servers[0].env : {};
    expect(Object.keys(serverEnv)).not.toContain('OPENAI_API_KEY');
    expect(Object.keys(serverEnv)).not.toContain('AWS_SECRET');
  });

  it("gives a stdio server's sandbox its paths as real paths, cwd readable, and names one that does not exist", async () => {
    using dir = tempDir('tether-mcp-sandbox-');
    mkdirSync(join(dir.path, 'state'));
    symlinkSync(join(dir.path, 'state'), join(dir.path, 'link'));
    const config = McpConfig.parse({
      servers: {
        s: {
          command: 'srv',
          cwd: dir.path,
          writable: [join(dir.path, 'link')],
          network: ['api.github.com'],
        },
        free: { command: 'srv', sandbox: false },
      },
    });
    const { servers } = await resolveMcpServers(config, linux);
    expect(
      servers.map((server) => (server.transport === 'stdio' ? server.sandbox : 'http')),
    ).toEqual([
      {
        writable: [realpathSync(join(dir.path, 'state'))],
        readable: [realpathSync(dir.path)],
        network: ['api.github.com'],
      },
      null,
    ]);
    const missing = McpConfig.parse({
      servers: { s: { command: 'srv', readable: ['/', join(dir.path, 'none')] } },
    });
    const error = await resolveMcpServers(missing, linux).catch((caught: unknown) => caught);
    expect((error as McpSettingsError).issues).toEqual([
      {
        field: 'mcp.servers.s.readable[1]',
        message: `${join(dir.path, 'none')} does not exist: create it, or leave it out`,
      },
    ]);
  });

  it('masks a plain value whose name says it is a secret, and no other', async () => {
    const config = McpConfig.parse({
      servers: {
        s: { command: 'srv', env: { GITHUB_TOKEN: 'ghp_plain0123456789', MODE: 'production' } },
        h: {
          url: 'https://mcp.example/mcp',
          headers: { Authorization: 'Bearer plain-abcdef012345', Accept: 'text/event-stream' },
        },
      },
    });
    const { secrets } = await resolveMcpServers(config, linux);
    expect(secrets).toEqual(['ghp_plain0123456789', 'Bearer plain-abcdef012345']);
  });

  it('refuses a loose file, a link, a missing file and the Keychain off macOS, naming each', async () => {
    using dir = tempDir('tether-mcp-secret-');
    const loose = join(dir.path, 'loose');
    writeFileSync(loose, 'x');
    chmodSync(loose, 0o644);
    const target = join(dir.path, 'target');
    writeFileSync(target, 'x', { mode: 0o600 });
    const link = join(dir.path, 'link');
    symlinkSync(target, link);
    const config = McpConfig.parse({
      servers: {
        s: {
          command: 'srv',
          env: { A: { file: loose }, B: { file: link }, C: { file: join(dir.path, 'none') } },
        },
        h: {
          url: 'https://mcp.example.org/mcp',
          headers: { authorization: { keychain: 'svc/acct' } },
        },
      },
    });
    const error = await resolveMcpServers(config, linux).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpSettingsError);
    const lines = (error as McpSettingsError).issues.map(
      (issue) => `${issue.field}: ${issue.message}`,
    );
    expect(lines).toEqual([
      expect.stringMatching(
        /^mcp\.servers\.s\.env\.A: .*has mode 0644; make it private: chmod 600/,
      ),
      expect.stringMatching(/^mcp\.servers\.s\.env\.B: .*symbolic link/),
      expect.stringMatching(/^mcp\.servers\.s\.env\.C: .*does not exist/),
      expect.stringMatching(
        /^mcp\.servers\.h\.headers\.authorization: the Keychain exists on macOS only/,
      ),
    ]);
  });

  it('reads a Keychain item by service and account', async () => {
    const config = McpConfig.parse({
      servers: {
        h: {
          url: 'https://mcp.example.org/mcp',
          headers: { authorization: { keychain: 'svc/me@x' } },
        },
      },
    });
    const { servers } = await resolveMcpServers(config, {
      ...linux,
      readKeychain: (service, account) =>
        Promise.resolve(service === 'svc' && account === 'me@x' ? 'Bearer from-keychain' : null),
    });
    expect(servers[0]).toMatchObject({ headers: { authorization: 'Bearer from-keychain' } });
  });

  it('the host stops at start when a secret cannot be read, naming the setting, and writes nothing', () => {
    using dir = tempDir('tether-mcp-start-');
    const loose = join(dir.path, 'token');
    writeFileSync(loose, 'x');
    chmodSync(loose, 0o644);
    const config = join(dir.path, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({ mcp: { servers: { s: { command: 'srv', env: { T: { file: loose } } } } } }),
    );
    const data = join(dir.path, 'data');
    mkdirSync(data, { mode: 0o700 });
    const bin = new URL('../../bin/tether.js', import.meta.url).pathname;
    const run = spawnSync(
      process.execPath,
      [bin, 'start', '--data', data, '--config', config, '--port', '0', '--workspace', dir.path],
      { encoding: 'utf8', env: { ...process.env, TETHER_KEY_STORE: 'file' }, timeout: 20_000 },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/invalid configuration:[\s\S]*mcp\.servers\.s\.env\.T: .*chmod 600/);
    expect(spawnSync('ls', [data], { encoding: 'utf8' }).stdout).not.toContain('tether.db');
  });
});

// Names isSecretFieldName misses, and credentials inside a URL.
describe('plain MCP secrets the logger rule missed', () => {
  it('masks GH_PAT, OPENAI_KEY, PGPASSWORD, X-Auth, Cookie and a URL password, not MODE', async () => {
    const config = McpConfig.parse({
      servers: {
        s: {
          command: 'srv',
          env: {
            GH_PAT: 'ghp_plain0123456789',
            OPENAI_KEY: 'plain-openai-0123',
            PGPASSWORD: 'pg-pass-0123456',
            DATABASE_URL: 'postgres://app:db-pass-0123456@db.internal/app',
            MODE: 'production',
          },
        },
        h: {
          url: 'https://mcp.example/mcp?api_key=url-key-0123456',
          headers: { 'X-Auth': 'x-auth-0123456789', Cookie: 'sid=cookie-0123456789' },
        },
      },
    });
    const { secrets } = await resolveMcpServers(config, {
      env: {},
      readFile: () => null,
      readKeychain: null,
    });
    expect(secrets).toEqual(
      expect.arrayContaining([
        'ghp_plain0123456789',
        'plain-openai-0123',
        'pg-pass-0123456',
        'db-pass-0123456',
        'url-key-0123456',
        'x-auth-0123456789',
        'sid=cookie-0123456789',
      ]),
    );
    expect(secrets).not.toContain('production');
  });
});
