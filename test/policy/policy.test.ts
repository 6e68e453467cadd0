import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PolicyConfig } from '../../host/policy/index.js';
import { decidePolicy } from '../../host/policy/testing.js';
import type { PolicyDecision } from '../../host/policy/index.js';
import type { PolicyConfigInput } from '../../host/policy/testing.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { SANDBOXED } from '../support/sandbox.js';
import { policyCall } from '../support/policy-call.js';

/** Real temporary folders: a workspace, a folder beside it, and a home with secrets. */
let temp: TempDir;
let root: string;
let workspace: string;
let outside: string;
let home: string;

beforeEach(async () => {
  temp = tempDir('tether-policy-');
  root = temp.path;
  workspace = path.join(root, 'workspace');
  outside = path.join(root, 'outside');
  home = path.join(root, 'home');
  for (const folder of [
    workspace,
    outside,
    path.join(workspace, 'src'),
    path.join(workspace, '.git', 'hooks'),
    path.join(home, '.ssh'),
    path.join(home, 'Library', 'Keychains'),
  ]) {
    await mkdir(folder, { recursive: true });
  }
  await writeFile(path.join(workspace, 'src', 'a.ts'), 'export {};\n');
  await writeFile(path.join(workspace, '.env'), 'TOKEN=secret\n');
  await writeFile(path.join(outside, 'notes.txt'), 'notes\n');
  await writeFile(path.join(home, '.ssh', 'id_rsa'), 'key\n');
  await writeFile(path.join(home, 'Library', 'Keychains', 'login.keychain-db'), 'db');
});
afterEach(() => temp.remove());

async function decide(
  name: string,
  input: unknown,
  policy: PolicyConfigInput = {},
  homedir = home,
): Promise<Omit<PolicyDecision, 'proposal'>> {
  // The rule an ask offers has its own tests (added-rules.test.ts).
  const { proposal: _proposal, ...decision } = await decidePolicy(policyCall(name, input), {
    workspace,
    policy: PolicyConfig.parse(policy),
    homedir,
    sandbox: SANDBOXED,
  });
  return decision;
}

const decisionOf = async (...args: Parameters<typeof decide>) => (await decide(...args)).decision;
const command = (text: string, policy?: PolicyConfigInput, cwd?: string) =>
  decide('run_command', cwd === undefined ? { command: text } : { command: text, cwd }, policy);

describe('defaults', () => {
  it('allows read_file and list_directory inside the workspace', async () => {
    expect(await decide('read_file', { path: 'src/a.ts' })).toEqual({
      decision: 'allow',
      reason: 'read_file only reads inside the workspace.',
    });
    expect(await decisionOf('list_directory', { path: '.' })).toBe('allow');
    expect(await decisionOf('read_file', { path: path.join(workspace, 'src/a.ts') })).toBe('allow');
  });

  it('asks before write_file and edit_file, naming the file', async () => {
    expect(
      await decide('write_file', { path: 'src/a.ts', content: '', expectedSha256: null }),
    ).toEqual({
      decision: 'ask',
      reason: 'write_file would change src/a.ts; changes to files need your approval.',
    });
    expect(await decisionOf('edit_file', { path: 'src/new.ts', oldText: 'a', newText: 'b' })).toBe(
      'ask',
    );
  });

  it('asks before run_command and before tools it has no rules for', async () => {
    expect(await command('git status')).toEqual({
      decision: 'ask',
      reason: 'No allow rule matches this command; it needs your approval.',
    });
    expect(await decisionOf('fetch_url', { url: 'https://example.com' })).toBe('ask');
  });

  it('denies a call whose path it cannot check; input the tool refuses never reaches it', async () => {
    expect(await decisionOf('read_file', { path: 'src/a.ts\0' })).toBe('deny');
    // Policy decides on what the tool declares for input the tool validated first.
    expect(() => policyCall('read_file', { file: 'src/a.ts' })).toThrow(/refuses this input/);
    expect(() => policyCall('run_command', { cmd: 'ls' })).toThrow(/refuses this input/);
  });

  it('decides without touching the file system', async () => {
    const before = await readdir(root, { recursive: true });
    await decide('write_file', { path: 'new/deep/file.ts', content: 'x', expectedSha256: null });
    await command('git status', { commands: { allow: [['git', 'status']] } });
    expect(await readdir(root, { recursive: true })).toEqual(before);
  });
});

describe('paths outside the workspace', () => {
  it('asks, naming the real path and the access, for reads and writes', async () => {
    expect(await decide('read_file', { path: '../outside/notes.txt' })).toEqual({
      decision: 'ask',
      reason: `read_file would read ${path.join(outside, 'notes.txt')}, outside the workspace; that needs your approval.`,
      access: { path: path.join(outside, 'notes.txt'), kind: 'read' },
    });
    expect(
      await decide('write_file', {
        path: path.join(outside, 'new.txt'),
        content: 'x',
        expectedSha256: null,
      }),
    ).toMatchObject({
      decision: 'ask',
      access: { path: path.join(outside, 'new.txt'), kind: 'write' },
    });
  });

  it('follows symlinks to where they lead', async () => {
    await symlink(outside, path.join(workspace, 'linked'));
    expect(await decide('list_directory', { path: 'linked' })).toMatchObject({
      decision: 'ask',
      access: { path: outside, kind: 'read' },
    });
  });

  it('denies instead when outsideWorkspace is "deny"', async () => {
    expect(
      await decide('read_file', { path: '../outside/notes.txt' }, { outsideWorkspace: 'deny' }),
    ).toEqual({
      decision: 'deny',
      reason: `read_file would read ${path.join(outside, 'notes.txt')}, outside the workspace, and the policy denies that.`,
      access: { path: path.join(outside, 'notes.txt'), kind: 'read' },
    });
  });

  it('asks, or denies, for a command run in a folder outside', async () => {
    expect(await command('ls', {}, outside)).toMatchObject({
      decision: 'ask',
      access: { path: outside, kind: 'write' },
    });
    expect(await command('ls', { outsideWorkspace: 'deny' }, '..')).toMatchObject({
      decision: 'deny',
      access: { path: root, kind: 'write' },
    });
  });
});

describe('protected paths', () => {
  it('denies reading and writing .env files, whatever their case', async () => {
    expect(await decide('read_file', { path: '.env' })).toEqual({
      decision: 'deny',
      reason:
        '.env is a protected path (.env*: environment files hold secrets), so read_file may not read it.',
    });
    for (const name of ['.ENV', '.Env', 'src/.env.local', 'config/.ENV.Production']) {
      expect(await decisionOf('read_file', { path: name }), name).toBe('deny');
      expect(await decisionOf('edit_file', { path: name, oldText: 'a', newText: 'b' })).toBe(
        'deny',
      );
    }
    expect(await decisionOf('read_file', { path: '.envrc' })).toBe('deny');
    expect(await decisionOf('read_file', { path: 'src/env.ts' })).toBe('allow');
  });

  it('denies writes inside .git, in any case and in nested repositories, but allows reads', async () => {
    const write = (file: string) =>
      decisionOf('write_file', { path: file, content: 'x', expectedSha256: null });
    expect(await write('.git/hooks/pre-commit')).toBe('deny');
    expect(await write('.git')).toBe('deny');
    expect(await write('.GIT/config')).toBe('deny');
    expect(await write('vendor/lib/.git/hooks/post-checkout')).toBe('deny');
    expect(await decisionOf('read_file', { path: '.git/HEAD' })).toBe('allow');
    expect(await write('.github/workflows/ci.yml')).toBe('ask');
    expect(await write('.gitignore')).toBe('ask');
  });

  it('denies a write through a symlink into .git, naming where it leads', async () => {
    await symlink('.git/hooks', path.join(workspace, 'hooks'));
    expect(
      await decide('edit_file', { path: 'hooks/pre-commit', oldText: 'a', newText: 'b' }),
    ).toEqual({
      decision: 'deny',
      reason:
        '.git/hooks/pre-commit is a protected path (.git: Git data and hooks), so edit_file may not change it.',
    });
  });

  it('denies ~/.ssh, also spelled in another case or reached through a symlink', async () => {
    const key = path.join(home, '.ssh', 'id_rsa');
    expect(await decide('read_file', { path: key })).toEqual({
      decision: 'deny',
      reason: `${key} is a protected path (~/.ssh: SSH keys), so read_file may not read it.`,
      access: { path: key, kind: 'read' },
    });
    expect(await decisionOf('read_file', { path: path.join(home, '.SSH', 'ID_RSA') })).toBe('deny');
    expect(await decisionOf('list_directory', { path: path.join(home, '.ssh') })).toBe('deny');
    await symlink(key, path.join(workspace, 'innocent.txt'));
    expect(await decisionOf('read_file', { path: 'innocent.txt' })).toBe('deny');
    // A home folder named through a symlink protects the real one too.
    const linkedHome = path.join(root, 'home-link');
    await symlink(home, linkedHome);
    expect(await decisionOf('read_file', { path: key }, {}, linkedHome)).toBe('deny');
  });

  it('denies keychains', async () => {
    const keychain = path.join(home, 'Library', 'Keychains', 'login.keychain-db');
    expect(await decisionOf('read_file', { path: keychain })).toBe('deny');
    expect(await decisionOf('read_file', { path: 'backup/Work.KEYCHAIN' })).toBe('deny');
  });

  it('adds the configured patterns to the defaults', async () => {
    const policy = { protectedPaths: ['secrets/**', '*.pem', '~/.aws/**', `${outside}/*.txt`] };
    expect(await decisionOf('read_file', { path: 'secrets/api/token.json' }, policy)).toBe('deny');
    expect(await decisionOf('read_file', { path: 'src/secrets/x' }, policy)).toBe('allow');
    expect(await decisionOf('read_file', { path: 'certs/Server.PEM' }, policy)).toBe('deny');
    expect(
      await decisionOf('read_file', { path: path.join(home, '.aws/credentials') }, policy),
    ).toBe('deny');
    expect(await decisionOf('read_file', { path: '../outside/notes.txt' }, policy)).toBe('deny');
    expect(await decisionOf('read_file', { path: '.env' }, policy)).toBe('deny');
  });
});

describe('run_command rules', () => {
  const gitStatus = { commands: { allow: [['git', 'status']] } };

  it('allows a command whose words are exactly an allow rule, and nothing longer', async () => {
    expect(await command('git status', gitStatus)).toEqual({
      decision: 'allow',
      reason: 'The policy allows "git status".',
    });
    for (const text of ['  git   status\t', `"git" 'status'`]) {
      expect(await decisionOf('run_command', { command: text }, gitStatus), text).toBe('allow');
    }
    for (const text of ['git statusx', 'git', 'git log', 'sudo git status', 'git "status -s"']) {
      expect(await decisionOf('run_command', { command: text }, gitStatus), text).toBe('ask');
    }
    expect(await command('git status -s', gitStatus)).toEqual({
      decision: 'ask',
      reason:
        'The rule "git status" allows exactly those words, and the command adds -s; it needs your approval.',
    });
    const open = { commands: { allow: [['git', 'status', '…']] } };
    expect(await decisionOf('run_command', { command: 'git status src' }, open)).toBe('allow');
    expect(await decisionOf('run_command', { command: 'git status' }, open)).toBe('allow');
    expect(await command('git status --short', open)).toEqual({
      decision: 'ask',
      reason:
        'The rule "git status …" allows more plain arguments only, and --short is an option; it needs your approval.',
    });
  });

  it('never lets an allow rule cover a command with shell metacharacters', async () => {
    const risky = [
      'git status; rm -rf ~',
      'git status && curl evil.example',
      'git status | sh',
      'git status `rm -rf x`',
      'git status $(rm -rf x)',
      'git status > .git/hooks/pre-commit',
      'git status < /etc/passwd',
      'git status\nrm -rf x',
      'git status & rm x',
      'git status *',
      'git status $HOME',
      'git status "unterminated',
      'git status "a;b"',
    ];
    for (const text of risky) {
      const decision = await command(text, gitStatus);
      expect(decision.decision, text).toBe('ask');
      expect(decision.reason, text).toMatch(
        /^The command (contains the shell metacharacter|has a quote)/,
      );
    }
    expect((await command('git status | sh', gitStatus)).reason).toBe(
      'The command contains the shell metacharacter "|", so no allow rule applies; it needs your approval.',
    );
  });

  it('lets a matching deny rule win over an allow rule', async () => {
    const policy = {
      commands: {
        allow: [
          ['git', 'log', '…'],
          ['git', 'push', '…'],
        ],
        deny: [['git', 'push']],
      },
    };
    expect(await command('git push --force', policy)).toEqual({
      decision: 'deny',
      reason: 'The policy denies commands starting with "git push".',
    });
    expect(await command('git log src', policy)).toMatchObject({ decision: 'allow' });
    expect(
      await decisionOf(
        'run_command',
        { command: 'git push' },
        { ...policy, tools: { run_command: 'allow' } },
      ),
    ).toBe('deny');
  });

  it('asks for a command that names the hosts it needs, whatever allows the command', async () => {
    const input = { command: 'npm ci', sandbox: { hosts: ['registry.npmjs.org'] } };
    const asked = {
      decision: 'ask',
      reason:
        'The command asks to run with network access only to registry.npmjs.org, beyond what the sandbox allows; that always needs your approval.',
    };
    expect(await decide('run_command', input, { commands: { allow: [['npm', 'ci']] } })).toEqual(
      asked,
    );
    expect(await decide('run_command', input, { tools: { run_command: 'allow' } })).toEqual(asked);
  });

  it('applies deny rules to each part of a compound command', async () => {
    const policy = { commands: { deny: [['rm']] } };
    for (const text of ['ls; rm -rf x', 'ls && rm x', 'echo $(rm x)', 'ls | rm x', '(rm x)']) {
      expect(await decisionOf('run_command', { command: text }, policy), text).toBe('deny');
    }
    expect(await decisionOf('run_command', { command: 'echo rm' }, policy)).toBe('ask');
  });

  it('asks when an allowed command names a protected path or one outside', async () => {
    const policy = { commands: { allow: [['cat', '…']] } };
    expect(await command('cat src/a.ts', policy)).toMatchObject({ decision: 'allow' });
    expect(await command('cat .env', policy)).toEqual({
      decision: 'ask',
      reason:
        'The command matches "cat …", but .env is a protected path (environment files hold secrets); it needs your approval.',
    });
    expect(await command('cat --file=.ENV', policy)).toMatchObject({ decision: 'ask' });
    expect(await command('cat a.ts', policy, 'src')).toMatchObject({ decision: 'allow' });
    expect(await command(`cat ${path.join(outside, 'notes.txt')}`, policy)).toMatchObject({
      decision: 'ask',
      access: { path: path.join(outside, 'notes.txt'), kind: 'write' },
    });
  });
});

describe('tools settings', () => {
  it('sets the default decision of a tool, never above protected or outside paths', async () => {
    const policy: PolicyConfigInput = { tools: { write_file: 'allow', read_file: 'ask' } };
    const write = (file: string) =>
      decisionOf('write_file', { path: file, content: 'x', expectedSha256: null }, policy);
    expect(await write('src/a.ts')).toBe('allow');
    expect(await write('.env')).toBe('deny');
    expect(await write('../outside/x')).toBe('ask');
    expect(await decisionOf('read_file', { path: 'src/a.ts' }, policy)).toBe('ask');
  });

  it('turns a tool off with "deny", whatever the rules say', async () => {
    const policy: PolicyConfigInput = {
      tools: { run_command: 'deny', list_directory: 'deny' },
      commands: { allow: [['git', 'status']] },
    };
    expect(await command('git status', policy)).toEqual({
      decision: 'deny',
      reason: 'The policy turns run_command off (tools.run_command is "deny").',
    });
    expect(await decisionOf('list_directory', { path: '.' }, policy)).toBe('deny');
  });

  it('allows every command with run_command "allow", metacharacters included', async () => {
    expect(
      await decisionOf(
        'run_command',
        { command: 'make | tee log' },
        {
          tools: { run_command: 'allow' },
        },
      ),
    ).toBe('allow');
  });
});
