import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, HOST_USAGE, loadHostConfig } from '../../host/config/index.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

let rootDir: TempDir;
let root: string;
let cwd: string;

beforeEach(() => {
  rootDir = tempDir('tether-policy-config-');
  root = rootDir.path;
  cwd = join(root, 'project');
  mkdirSync(cwd);
});

afterEach(() => {
  rootDir.remove();
});

function loadWith(policy: unknown) {
  const file = join(root, 'config.json');
  writeFileSync(file, JSON.stringify({ policy }));
  const config = () =>
    loadHostConfig({
      argv: ['--config', file],
      env: {},
      cwd,
      platform: 'linux',
      homedir: join(root, 'home'),
    });
  return { file, config };
}

/** The ConfigError's issues as `field: message` lines. */
function issuesOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues.map((issue) => `${issue.field}: ${issue.message}`);
  }
  throw new Error('expected a ConfigError');
}

const DEFAULTS = {
  commands: { allow: [], deny: [] },
  outsideWorkspace: 'ask',
  worktree: 'allow',
  protectedPaths: [],
  allowSecretPaths: [],
  tools: {},
};

describe('the policy section of the config file', () => {
  it('is optional: without it the host has the default policy', () => {
    const config = loadHostConfig({
      argv: [],
      env: {},
      cwd,
      platform: 'linux',
      homedir: join(root, 'home'),
    });
    expect(config.policy).toEqual(DEFAULTS);
  });

  it('fills in the defaults of what it leaves out', () => {
    const { config } = loadWith({ commands: { allow: [['git', 'status']] } });
    expect(config().policy).toEqual({
      ...DEFAULTS,
      commands: { allow: [['git', 'status']], deny: [] },
    });
  });

  it('reads every setting', () => {
    const policy = {
      commands: {
        allow: [
          ['npm', 'test'],
          ['git', 'commit', '-m', 'two words'],
        ],
        deny: [['rm']],
      },
      outsideWorkspace: 'deny',
      worktree: 'ask',
      protectedPaths: ['secrets/**', '*.pem', '~/.aws/**', '/etc/**'],
      allowSecretPaths: ['config/credentials.example.json', '~/.npmrc'],
      tools: { write_file: 'allow', run_command: 'deny' },
    };
    expect(loadWith(policy).config().policy).toEqual(policy);
  });

  it('names each bad setting by its path, with what was expected', () => {
    const { config } = loadWith({
      commands: { allow: ['git status', ['git', 'status;'], []], deny: [['rm', '']] },
      outsideWorkspace: 'allow',
      worktree: 'always',
      protectedPaths: ['~root/.ssh'],
      allowSecretPaths: ['config/*.json'],
      tools: { read_file: 'yes', shell: 'allow' },
      colour: 'blue',
    });
    expect(issuesOf(config).sort()).toEqual(
      [
        'policy.commands.allow[0]: expected a command as a list of words, like ["git", "status"]',
        'policy.commands.allow[1][1]: expected a plain word: commands holding any of ' +
          ';&|`$<>()\\*?[]{}~# or a control character are never allowed by rules',
        'policy.commands.allow[2]: expected at least one word',
        'policy.commands.deny[0][1]: expected a non-empty word',
        'policy.outsideWorkspace: expected ask or deny',
        'policy.worktree: expected allow or ask',
        'policy.protectedPaths[0]: only ~/ is understood: write ~/… for your home folder, or an ' +
          'absolute path',
        'policy.allowSecretPaths[0]: expected one exact path, not a pattern: write it without * or ?',
        'policy.tools.read_file: expected allow, ask or deny',
        'policy.tools.shell: unknown setting',
        'policy.colour: unknown setting',
      ].sort(),
    );
  });

  it('takes "…" only as the last word of an allow rule, after the program', () => {
    const { config } = loadWith({
      commands: {
        allow: [['git', 'log', '…'], ['git', '...'], ['git', '…', 'log'], ['…']],
        deny: [['git', 'push', '…']],
      },
    });
    expect(issuesOf(config).sort()).toEqual(
      [
        'policy.commands.allow[2]: "…" may only be the last word of a rule, like ["git", "log", "…"]',
        'policy.commands.allow[3]: a rule must start with the program, like ["git", "log", "…"]',
        'policy.commands.deny[0]: a deny rule already matches every longer command: drop the "…"',
      ].sort(),
    );
  });

  it('refuses a rule that starts with an assignment (issue 23)', () => {
    const { config } = loadWith({
      commands: {
        allow: [
          ['GIT_CONFIG_GLOBAL=gitconfig', 'git', 'diff'],
          ['make', 'CC=x'],
        ],
      },
    });
    expect(issuesOf(config)).toEqual([
      'policy.commands.allow[0]: a rule must start with the program, not an assignment: a command a rule lets through runs without a shell, where NAME=value means nothing',
    ]);
  });

  it('rejects a policy that is not an object', () => {
    expect(issuesOf(loadWith(['allow']).config)).toEqual(['policy: expected an object']);
  });

  it('is named in the usage text', () => {
    expect(HOST_USAGE).toContain('policy {commands {allow, deny}, outsideWorkspace');
  });
});
