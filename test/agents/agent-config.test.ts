/**
 * The `agents` config section (docs/agents.md): bad values stop the host naming the file's
 * setting; secrets come from 0600 files like MCP servers'; an agent's environment is the
 * minimal one plus its own `env`; its folders must exist; the start-up log masks values.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentSettingsError, AgentsConfig, resolveAgents } from '../../host/agents/index.js';
import { ConfigError, loadHostConfig, redactedConfig } from '../../host/config/index.js';
import { readPrivateFile } from '../../host/identity/index.js';
import { tempDir } from '../support/temp-dir.js';

function load(config: unknown, dir: string) {
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  return loadHostConfig({
    argv: ['--config', file, '--data', join(dir, 'data'), '--workspace', dir],
    env: {},
    cwd: dir,
    platform: 'linux',
    homedir: dir,
  });
}

function issuesOf(config: unknown): string[] {
  using dir = tempDir('tether-agent-config-');
  try {
    load(config, dir.path);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues.map(
      (issue) => `${issue.source.replace(dir.path, 'DIR')} ${issue.field}: ${issue.message}`,
    );
  }
  throw new Error('expected a ConfigError');
}

const readFile = (path: string) =>
  readPrivateFile(
    path,
    (problem) => new Error(`the secret file ${path} ${problem}`),
    (mode) => `has mode ${mode}; make it private: chmod 600 ${path}`,
  );

describe('agents config', () => {
  it('names the file and each bad setting', () => {
    expect(
      issuesOf({
        agents: {
          a: { command: '' },
          b: { command: 'x', colour: 'red' },
          c: { command: 'x', cwd: 'relative' },
          d: { command: 'x', env: { TOKEN: { keychain: 'nope' } } },
          e: { command: 'x', network: ['api.anthropic.com', '*.com'] },
          f: { command: 'x', network: 'api.anthropic.com' },
          'bad name': { command: 'x' },
        },
      }),
    ).toEqual(
      expect.arrayContaining([
        'config file DIR/config.json agents.a.command: expected a program',
        'config file DIR/config.json agents.b.colour: unknown setting',
        'config file DIR/config.json agents.c.cwd: expected an absolute path',
        'config file DIR/config.json agents.d.env.TOKEN.keychain: expected "service/account"',
        'config file DIR/config.json agents.e.network[1]: expected a host name, *.name, name:port or an IPv4 address (as api.anthropic.com or *.github.com)',
        'config file DIR/config.json agents.f.network: expected a list of host names',
        expect.stringMatching(/agents\.bad name: expected an agent name/),
      ]),
    );
  });

  it('the start-up log line masks plain env values', () => {
    using dir = tempDir('tether-agent-config-');
    const config = load(
      { agents: { claude: { command: 'x', env: { ANTHROPIC_API_KEY: 'sk-plain-value' } } } },
      dir.path,
    );
    expect(JSON.stringify(redactedConfig(config))).not.toContain('sk-plain-value');
  });

  it('reads secrets from 0600 files, gives the minimal environment, and checks its folders', async () => {
    using dir = tempDir('tether-agent-secret-');
    const secret = join(dir.path, 'key');
    writeFileSync(secret, 'sk-from-file-0123\n', { mode: 0o600 });
    const env = { PATH: '/usr/bin', HOME: '/home/u', OPENAI_API_KEY: 'sk-host' };
    const options = { env, readFile, readKeychain: null };
    const { agents, secrets } = await resolveAgents(
      AgentsConfig.parse({
        claude: {
          command: 'claude-agent-acp',
          env: { ANTHROPIC_API_KEY: { file: secret }, MODE: 'fast' },
          writable: [dir.path],
        },
      }),
      options,
    );
    expect(secrets).toEqual(['sk-from-file-0123']);
    expect(agents[0]).toMatchObject({
      name: 'claude',
      args: [],
      env: {
        PATH: '/usr/bin',
        HOME: '/home/u',
        ANTHROPIC_API_KEY: 'sk-from-file-0123',
        MODE: 'fast',
      },
      readable: [],
    });
    expect(Object.keys(agents[0]!.env)).not.toContain('OPENAI_API_KEY');
    const missing = await resolveAgents(
      AgentsConfig.parse({
        claude: {
          command: 'x',
          writable: [join(dir.path, 'nope')],
          env: { K: { file: join(dir.path, 'none') } },
        },
      }),
      options,
    ).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(AgentSettingsError);
    expect((missing as AgentSettingsError).issues).toEqual([
      {
        field: 'agents.claude.env.K',
        message: `the secret file ${join(dir.path, 'none')} does not exist`,
      },
      {
        field: 'agents.claude.writable[0]',
        message: `${join(dir.path, 'nope')} does not exist: create it, or leave it out`,
      },
    ]);
  });
});
