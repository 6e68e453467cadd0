import { chmodSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigError,
  ensureDataDir,
  HOST_USAGE,
  loadHostConfig,
  redactedConfig,
} from '../../host/config/index.js';
import { HOST_FLAGS } from '../../host/config/testing.js';
import type { LoadHostConfigOptions } from '../../host/config/testing.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

let rootDir: TempDir;
let root: string;
let home: string;
let cwd: string;

beforeEach(() => {
  rootDir = tempDir('tether-config-');
  root = rootDir.path;
  home = join(root, 'home');
  cwd = join(root, 'project');
  mkdirSync(home);
  mkdirSync(cwd);
});

afterEach(() => {
  rootDir.remove();
});

function load(options: Partial<LoadHostConfigOptions> = {}) {
  return loadHostConfig({ argv: [], env: {}, cwd, platform: 'linux', homedir: home, ...options });
}

/** The issues of the ConfigError `run` throws, as `source: field: message` lines. */
function issuesOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues.map((i) => `${i.source}: ${i.field}: ${i.message}`);
  }
  throw new Error('expected a ConfigError');
}

function writeConfig(path: string, value: unknown, mode = 0o644): string {
  writeFileSync(path, JSON.stringify(value));
  chmodSync(path, mode);
  return path;
}

describe('defaults', () => {
  it('on Linux: ~/.local/share/tether, port 8787, loopback, the cwd as the one workspace', () => {
    const config = load();
    expect(config.dataDir).toBe(join(home, '.local', 'share', 'tether'));
    expect(config.port).toBe(8787);
    expect(config.bind).toBe('127.0.0.1');
    expect(config.workspaces).toEqual([{ name: 'project', path: cwd }]);
    expect(config.model).toBeNull();
    expect(config.configFile).toBeNull();
    expect(config.keyStore).toBe('file');
    expect(config.logLevel).toBe('info');
    expect(config.hostName).toBe(hostname().replace(/\.local$/i, ''));
    expect(config.hostName).not.toMatch(/\.local$/);
    expect(config.limits).toEqual({
      maxActiveRuns: 1,
      maxModelTurns: 50,
      runWallTimeMs: 7_200_000,
      modelIdleTimeoutMs: 120_000,
      toolResultMaxChars: 16_000,
      attachmentMaxBytes: 20 * 1024 * 1024,
      runAttachmentsMaxBytes: 50 * 1024 * 1024,
      attachmentDiskReserveBytes: 1024 * 1024 * 1024,
    });
  });

  it('on Linux honours an absolute XDG_DATA_HOME and ignores a relative one', () => {
    const xdg = join(root, 'xdg');
    expect(load({ env: { XDG_DATA_HOME: xdg } }).dataDir).toBe(join(xdg, 'tether'));
    expect(load({ env: { XDG_DATA_HOME: 'rel/xdg' } }).dataDir).toBe(
      join(home, '.local', 'share', 'tether'),
    );
  });

  it('on macOS: ~/Library/Application Support/Tether and the Keychain', () => {
    const config = load({ platform: 'darwin', env: { XDG_DATA_HOME: join(root, 'xdg') } });
    expect(config.dataDir).toBe(join(home, 'Library', 'Application Support', 'Tether'));
    expect(config.keyStore).toBe('keychain');
  });

  it('resolves a relative --data against the cwd', () => {
    expect(load({ argv: ['--data', 'state'] }).dataDir).toBe(join(cwd, 'state'));
    expect(load({ argv: ['--data=/abs/dir'] }).dataDir).toBe('/abs/dir');
  });
});

describe('precedence: defaults < config file < environment < flags', () => {
  it('takes each setting from the latest source that has it', () => {
    const dataDir = join(root, 'data');
    mkdirSync(dataDir);
    const file = writeConfig(join(dataDir, 'config.json'), { port: 1111, bind: '0.0.0.0' });
    const argv = ['--data', dataDir];
    const env = { TETHER_PORT: '2222', TETHER_BIND: '::1' };

    const all = load({ argv: [...argv, '--port', '3333', '--bind', '127.0.0.2'], env });
    expect([all.port, all.bind, all.configFile]).toEqual([3333, '127.0.0.2', file]);
    const noFlags = load({ argv, env });
    expect([noFlags.port, noFlags.bind]).toEqual([2222, '::1']);
    const fileOnly = load({ argv });
    expect([fileOnly.port, fileOnly.bind]).toEqual([1111, '0.0.0.0']);
  });

  it('reads --config FILE instead of <data>/config.json, and requires it to exist', () => {
    const dataDir = join(root, 'data');
    mkdirSync(dataDir);
    writeConfig(join(dataDir, 'config.json'), { port: 1111 });
    const other = writeConfig(join(root, 'other.json'), {
      port: 4444,
      limits: { maxActiveRuns: 3 },
    });

    const config = load({ argv: ['--data', dataDir, '--config', other] });
    expect(config.port).toBe(4444);
    expect(config.limits.maxActiveRuns).toBe(3);
    expect(config.limits.maxModelTurns).toBe(50);
    expect(issuesOf(() => load({ argv: ['--config', join(root, 'none.json')] }))).toEqual([
      `config file ${join(root, 'none.json')}: (file): not found`,
    ]);
  });

  it('treats an empty environment variable as unset', () => {
    expect(load({ env: { TETHER_PORT: '' } }).port).toBe(8787);
  });
});

describe('workspaces', () => {
  it('uses every --workspace and the file list, by real path, with unique names', () => {
    const a = join(root, 'a', 'proj');
    const b = join(root, 'b', 'proj');
    const c = join(root, 'c');
    for (const dir of [a, b, c]) mkdirSync(dir, { recursive: true });
    symlinkSync(c, join(root, 'link-to-c'));
    const file = writeConfig(join(root, 'tether.json'), { workspaces: ['a/proj'] });

    const config = load({
      argv: ['--config', file, '--workspace', b, '--workspace', '../link-to-c', '--workspace', c],
    });
    expect(config.workspaces).toEqual([
      { name: 'proj', path: a },
      { name: 'proj-2', path: b },
      { name: 'c', path: c },
    ]);
  });

  it('takes a worktree default per folder in the file, also for a folder --workspace names again', () => {
    const repo = join(root, 'repo');
    const plain = join(root, 'plain');
    for (const dir of [repo, plain]) mkdirSync(dir, { recursive: true });
    const file = writeConfig(join(root, 'tether.json'), {
      workspaces: [
        { path: 'repo', isolation: 'worktree' },
        { path: 'plain', isolation: 'none' },
      ],
    });

    const config = load({ argv: ['--config', file, '--workspace', repo] });
    expect(config.workspaces).toEqual([
      { name: 'repo', path: repo, isolation: 'worktree' },
      { name: 'plain', path: plain },
    ]);
  });

  it('names a workspace entry that is neither a path nor {path, isolation}', () => {
    const file = writeConfig(join(root, 'tether.json'), {
      workspaces: [{ path: 'repo', isolation: 'branch' }, { folder: 'x' }, 3],
    });
    expect(issuesOf(() => load({ argv: ['--config', file] }))).toEqual([
      `config file ${file}: workspaces[0].isolation: expected "none" or "worktree"`,
      `config file ${file}: workspaces[1].path: expected a path`,
      `config file ${file}: workspaces[1].folder: unknown setting`,
      `config file ${file}: workspaces[2]: expected a folder path or {"path", "isolation": "worktree"}`,
    ]);
  });

  it('reports a missing folder with where it was given', () => {
    const missing = join(root, 'missing');
    writeFileSync(join(root, 'plain-file'), '');
    expect(
      issuesOf(() => load({ argv: ['--workspace', missing, '--workspace', '../plain-file'] })),
    ).toEqual([
      `command line: --workspace: no such folder: ${missing}`,
      `command line: --workspace: not a folder: ${join(root, 'plain-file')}`,
    ]);
  });
});

describe('errors', () => {
  it('rejects unknown flags and stray arguments', () => {
    expect(issuesOf(() => load({ argv: ['--nope', 'start'] }))).toEqual([
      `command line: --nope: unknown option (known: ${HOST_FLAGS.map((f) => f.flag).join(', ')})`,
      'command line: start: unexpected argument',
    ]);
    expect(issuesOf(() => load({ argv: ['--port'] }))).toEqual([
      'command line: --port: expects a value: --port N',
    ]);
    expect(issuesOf(() => load({ argv: ['--port', '1', '--port', '2'] }))).toEqual([
      'command line: --port: given more than once',
    ]);
  });

  it('rejects a bad port from any source and allows 0', () => {
    const file = writeConfig(join(root, 'tether.json'), { port: 1.5 });
    expect(
      issuesOf(() =>
        load({ argv: ['--port', '70000', '--config', file], env: { TETHER_PORT: 'x' } }),
      ),
    ).toEqual([
      'command line: --port: expected an integer from 0 to 65535',
      'environment: TETHER_PORT: expected an integer from 0 to 65535',
      `config file ${file}: port: expected an integer from 0 to 65535`,
    ]);
    expect(load({ argv: ['--port', '0'] }).port).toBe(0);
  });

  it('rejects unknown config keys and bad values, naming their path', () => {
    const file = writeConfig(join(root, 'tether.json'), {
      limits: { maxActiveRuns: 0, maxActiveRun: 2 },
      colour: 'blue',
      workspaces: 'here',
    });
    expect(issuesOf(() => load({ argv: ['--config', file] }))).toEqual([
      `config file ${file}: workspaces: expected a list of folder paths or {"path", "isolation": "worktree"}`,
      `config file ${file}: limits.maxActiveRuns: expected a positive integer`,
      `config file ${file}: limits.maxActiveRun: unknown setting`,
      `config file ${file}: colour: unknown setting`,
    ]);
  });

  it('reads the attachment bounds and refuses ones past 1 GiB or below a byte (issue 28)', () => {
    const good = writeConfig(join(root, 'attach.json'), {
      limits: {
        attachmentMaxBytes: 5_000_000,
        runAttachmentsMaxBytes: 9_000_000,
        attachmentDiskReserveBytes: 0,
      },
    });
    expect(load({ argv: ['--config', good] }).limits).toMatchObject({
      attachmentMaxBytes: 5_000_000,
      runAttachmentsMaxBytes: 9_000_000,
      attachmentDiskReserveBytes: 0,
    });
    const bad = writeConfig(join(root, 'attach-bad.json'), {
      limits: {
        attachmentMaxBytes: 0,
        runAttachmentsMaxBytes: 2 * 1024 ** 3,
        attachmentDiskReserveBytes: -1,
      },
    });
    const message = 'expected a number of bytes from 1 to 1073741824 (1 GiB)';
    expect(issuesOf(() => load({ argv: ['--config', bad] }))).toEqual([
      `config file ${bad}: limits.attachmentMaxBytes: ${message}`,
      `config file ${bad}: limits.runAttachmentsMaxBytes: ${message}`,
      `config file ${bad}: limits.attachmentDiskReserveBytes: expected a number of bytes from 0 to 9007199254740991`,
    ]);
  });

  it('reads the transcription endpoint, and refuses a partial or bad one, naming it (issue 28)', () => {
    expect(load().voice).toBeNull();
    const good = writeConfig(join(root, 'voice.json'), {
      voice: {
        baseUrl: 'https://api.groq.com/openai/v1',
        model: 'whisper-large-v3',
        language: 'de',
      },
    });
    expect(load({ argv: ['--config', good] }).voice).toEqual({
      baseUrl: 'https://api.groq.com/openai/v1',
      model: 'whisper-large-v3',
      language: 'de',
    });
    const bad = writeConfig(join(root, 'voice-bad.json'), {
      voice: { baseUrl: 'ftp://example.org', language: 'German', apiKey: 'sk-x' },
    });
    expect(issuesOf(() => load({ argv: ['--config', bad] }))).toEqual([
      `config file ${bad}: voice.baseUrl: expected an http or https URL`,
      `config file ${bad}: voice.model: expected a model name`,
      `config file ${bad}: voice.language: expected a language code such as en or de (ISO 639-1)`,
      `config file ${bad}: voice.apiKey: unknown setting`,
    ]);
    const notObject = writeConfig(join(root, 'voice-string.json'), { voice: 'whisper' });
    expect(issuesOf(() => load({ argv: ['--config', notObject] }))).toEqual([
      `config file ${notObject}: voice: expected {"baseUrl": "https://…", "model": "NAME", "language"?: "en"} (tether voice set writes it)`,
    ]);
  });

  it('reads prices per model and refuses unknown or bad price settings, naming them', () => {
    const price = { inputPerMTok: 0.27, cachedInputPerMTok: 0.07, outputPerMTok: 1.1 };
    const good = writeConfig(join(root, 'prices.json'), { prices: { 'deepseek-chat': price } });
    expect(load({ argv: ['--config', good] }).prices).toEqual({ 'deepseek-chat': price });
    expect(load().prices).toEqual({});
    const bad = writeConfig(join(root, 'bad-prices.json'), {
      prices: {
        'deepseek-chat': { inputPerMTok: 0.27, outputPerMTok: -1, reasoningPerMTok: 2 },
        'gpt-x': { outputPerMTok: 1 },
      },
    });
    expect(issuesOf(() => load({ argv: ['--config', bad] }))).toEqual([
      `config file ${bad}: prices.deepseek-chat.outputPerMTok: expected US dollars per million tokens: a number from 0 to 10000`,
      `config file ${bad}: prices.deepseek-chat.reasoningPerMTok: unknown setting`,
      `config file ${bad}: prices.gpt-x.inputPerMTok: expected US dollars per million tokens: a number from 0 to 10000`,
    ]);
  });

  it('lists every problem at once, in a message with one line each', () => {
    const missing = join(root, 'missing');
    let error: unknown;
    try {
      load({ argv: ['--bogus', '--workspace', missing], env: { TETHER_BIND: 'everywhere' } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message.split('\n')).toEqual([
      'invalid configuration:',
      expect.stringContaining('command line: --bogus: unknown option'),
      '  environment: TETHER_BIND: expected an IP address such as 127.0.0.1 or 0.0.0.0',
      `  command line: --workspace: no such folder: ${missing}`,
    ]);
  });

  it('reports a config file that is not JSON', () => {
    const file = join(root, 'broken.json');
    writeFileSync(file, '{ "port": ');
    expect(issuesOf(() => load({ argv: ['--config', file] }))[0]).toMatch(
      new RegExp(`^config file ${file}: \\(file\\): not valid JSON`),
    );
  });
});

describe('model settings', () => {
  it('is null when nothing is configured', () => {
    expect(load({ env: { HOME: home, PATH: '/usr/bin' } }).model).toBeNull();
  });

  it('takes TETHER_MODEL_* as given', () => {
    const env = {
      TETHER_MODEL_BASE_URL: 'http://localhost:11434/v1',
      TETHER_MODEL: 'qwen3',
      TETHER_MODEL_API_KEY: 'ollama-key',
    };
    expect(load({ env }).model).toEqual({
      baseUrl: 'http://localhost:11434/v1',
      model: 'qwen3',
      apiKey: 'ollama-key',
    });
  });

  it('uses DEEPSEEK_API_KEY for the DeepSeek endpoint when no base URL is set', () => {
    const env = { DEEPSEEK_API_KEY: 'sk-deepseek-0123456789', TETHER_MODEL: 'deepseek-v4-flash' };
    const config = load({ env });
    expect(config.model).toEqual({
      baseUrl: 'https://api.deepseek.com',
      model: 'deepseek-v4-flash',
      apiKey: 'sk-deepseek-0123456789',
      provider: 'deepseek',
    });
    expect(config.warnings).toEqual([]);
  });

  it('starts without a model, with a warning, when a provider key has no model name', () => {
    const config = load({ env: { DEEPSEEK_API_KEY: 'sk-deepseek-0123456789' } });
    expect(config.model).toBeNull();
    expect(config.warnings).toEqual([
      'DEEPSEEK_API_KEY is set but no model is named (TETHER_MODEL or model.model): starting without a model',
    ]);
  });

  it('lets a provider key fill in the key for that provider’s base URL only', () => {
    const env = { OPENAI_API_KEY: 'sk-openai-0123456789', TETHER_MODEL: 'gpt-4.1-mini' };
    const openai = load({ env: { ...env, TETHER_MODEL_BASE_URL: 'https://api.openai.com/v1' } });
    expect(openai.model).toMatchObject({ apiKey: 'sk-openai-0123456789', provider: 'openai' });
    const local = load({ env: { ...env, TETHER_MODEL_BASE_URL: 'http://127.0.0.1:9000/v1' } });
    expect(local.model).toEqual({ baseUrl: 'http://127.0.0.1:9000/v1', model: 'gpt-4.1-mini' });
  });

  it('rejects a base URL without a model name, and a model name without a base URL', () => {
    expect(
      issuesOf(() => load({ env: { TETHER_MODEL_BASE_URL: 'http://localhost:1/v1' } })),
    ).toEqual([
      'model settings: model: base URL http://localhost:1/v1 is set but no model is named: set TETHER_MODEL or model.model',
    ]);
    expect(issuesOf(() => load({ env: { TETHER_MODEL: 'm' } }))[0]).toMatch(
      /^model settings: baseUrl: a model is partly configured but has no base URL/,
    );
    expect(issuesOf(() => load({ env: { TETHER_MODEL_BASE_URL: 'ftp://x' } }))).toEqual([
      'environment: TETHER_MODEL_BASE_URL: expected an http or https URL',
    ]);
  });

  it('reads the file’s model, with the key from apiKeyEnv, and lets the environment override', () => {
    const file = writeConfig(join(root, 'tether.json'), {
      model: {
        baseUrl: 'https://llm.example/v1',
        model: 'file-model',
        apiKeyEnv: 'MY_LLM_KEY',
        extraBody: { thinking: { type: 'enabled' } },
      },
    });
    const argv = ['--config', file];
    expect(load({ argv, env: { MY_LLM_KEY: 'key-from-env-var' } }).model).toEqual({
      baseUrl: 'https://llm.example/v1',
      model: 'file-model',
      apiKey: 'key-from-env-var',
      extraBody: { thinking: { type: 'enabled' } },
    });
    expect(
      load({ argv, env: { MY_LLM_KEY: 'key-from-env-var', TETHER_MODEL: 'env-model' } }).model,
    ).toMatchObject({ model: 'env-model' });
    expect(issuesOf(() => load({ argv }))).toEqual([
      `config file ${file}: model.apiKeyEnv: environment variable MY_LLM_KEY is not set`,
    ]);
  });

  it('reads a literal apiKey only from a 0600 file', () => {
    const model = { baseUrl: 'https://llm.example/v1', model: 'm', apiKey: 'literal-key-123' };
    const open = writeConfig(join(root, 'open.json'), { model }, 0o644);
    expect(issuesOf(() => load({ argv: ['--config', open] }))[0]).toMatch(
      new RegExp(
        `^config file ${open}: model.apiKey: a literal API key is only read from a file no one else can read`,
      ),
    );
    const closed = writeConfig(join(root, 'closed.json'), { model }, 0o600);
    expect(load({ argv: ['--config', closed] }).model?.apiKey).toBe('literal-key-123');
  });
});

describe('redactedConfig', () => {
  it('masks the API key and leaves the config itself alone', () => {
    const env = { DEEPSEEK_API_KEY: 'sk-deepseek-0123456789', TETHER_MODEL: 'deepseek-v4-flash' };
    const config = load({ env });
    const redacted = redactedConfig(config);
    expect(redacted.model?.apiKey).toBe('***');
    expect(JSON.stringify(redacted)).not.toContain('sk-deepseek-0123456789');
    expect(redacted.port).toBe(config.port);
    expect(config.model?.apiKey).toBe('sk-deepseek-0123456789');
    expect(redactedConfig(load()).model).toBeNull();
  });
});

describe('ensureDataDir', () => {
  it('creates missing folders with mode 0700 and accepts an existing one', () => {
    const dir = join(root, 'deep', 'data');
    expect(ensureDataDir(dir)).toEqual({ created: true });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(ensureDataDir(dir)).toEqual({ created: false });
  });

  it('names the folder when it cannot be used', () => {
    const file = join(root, 'a-file');
    writeFileSync(file, '');
    expect(() => ensureDataDir(file)).toThrow(ConfigError);
    expect(() => ensureDataDir(join(file, 'sub'))).toThrow(
      `data directory: ${join(file, 'sub')}: cannot create it`,
    );
  });
});

describe('usage text', () => {
  it('lists every flag and the model variables', () => {
    for (const flag of HOST_FLAGS) expect(HOST_USAGE).toContain(`${flag.flag} ${flag.value}`);
    for (const name of ['TETHER_MODEL_BASE_URL', 'TETHER_MODEL', 'TETHER_MODEL_API_KEY']) {
      expect(HOST_USAGE).toContain(name);
    }
  });
});

describe('push settings (docs/push.md)', () => {
  function loadPush(push: unknown) {
    const dataDir = join(root, 'data');
    mkdirSync(dataDir, { recursive: true });
    writeConfig(join(dataDir, 'config.json'), { push });
    return () => load({ argv: ['--data', dataDir] });
  }

  it('takes a mailto: or https: subject, and refuses what Apple would', () => {
    expect(() => loadPush({ subject: 'mailto:me@example.org' })()).not.toThrow();
    expect(() => loadPush({ subject: 'https://tether.example.org' })()).not.toThrow();
    for (const subject of [
      'me@example.org',
      'http://example.org',
      'https://localhost',
      'mailto:me',
    ]) {
      expect(issuesOf(loadPush({ subject })), subject).toEqual([
        expect.stringMatching(
          /push\.subject: expected a mailto: address .* or an https: URL with a host name$/,
        ) as string,
      ]);
    }
  });

  it('names a bad body setting and an unknown key', () => {
    const issues = issuesOf(loadPush({ body: 'everything', colour: 'red' }));
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringContaining('push.body:') as string,
        expect.stringContaining('push.colour: unknown setting') as string,
      ]),
    );
  });
});

describe('model.provider', () => {
  function loadProvider(provider: string) {
    const dataDir = join(root, 'data');
    mkdirSync(dataDir, { recursive: true });
    writeConfig(join(dataDir, 'config.json'), {
      model: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', provider },
    });
    return () => load({ argv: ['--data', dataDir] });
  }

  it('takes any provider of docs/model-providers.md, and names the valid ones otherwise', () => {
    expect(loadProvider('gemini')().model?.provider).toBe('gemini');
    expect(loadProvider('llamacpp')().model?.provider).toBe('llamacpp');
    expect(issuesOf(loadProvider('bogus'))).toEqual([
      expect.stringMatching(
        /model\.provider: expected one of deepseek, openai, azure, gemini, .*, generic \(docs\/model-providers\.md\); leave it out to detect the provider from the base URL$/,
      ) as string,
    ]);
  });
});
