/**
 * Rules added from the app ("Allow like this from now on", docs/policy.md): a call whose
 * exact re-run could do what a file the model can write, or a program the rule names,
 * decides is never offered a rule, and no rule added for it allows it.
 * - Interpreters under other names: macOS finds `Python3` as python3 (APFS ignores
 *   case), and versioned interpreters (`python3.12`) are the same programs.
 * - git pointed at a nested or bare repository with -C or --git-dir reads that
 *   repository's config (core.fsmonitor runs a program), which the cwd check alone does
 *   not see; `git config core.fsmonitor ./x` (core.hooksPath, include.path) writes
 *   .git/config, naming a program the next `git status` runs.
 * - `curl -K x.cfg` / `wget -i x.cfg`: the config names what it writes (`output =
 *   .git/config`) and uploads (`upload-file = .env`).
 * - `git rebase -x ./x`, `git bisect run ./x`, `git difftool -x ./x`, `git submodule
 *   foreach ./x`, `git grep -O ./x`, `git clone -u ./x`, `sort --compress-program ./x`,
 *   `man -P ./x`, `sftp -S ./x`, `sftp -F x.cfg` (ProxyCommand): run the script named,
 *   whose text the model rewrites after the rule is added.
 * - Archives and patches: what they write is named inside them, `.git/hooks` too.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyConfig } from '../../host/policy/index.js';
import { decidePolicy } from '../../host/policy/testing.js';
import type { AddedRule, PolicyDecision } from '../../host/policy/index.js';
import { allowRuleWarnings } from '../../host/policy/command-risk.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { makeRuleWorkspace } from './rule-oracle.js';
import { SANDBOXED } from '../support/sandbox.js';
import { policyCall } from '../support/policy-call.js';

let temp: TempDir;
let workspace: string;

beforeAll(async () => {
  temp = tempDir('tether-rules-never-offered-');
  workspace = await makeRuleWorkspace(temp.path);
});
afterAll(() => temp.remove());

function decide(command: string, added: readonly AddedRule[] = []): Promise<PolicyDecision> {
  return decidePolicy(policyCall('run_command', { command }), {
    workspace,
    policy: PolicyConfig.parse({}),
    homedir: path.join(temp.path, 'home'),
    sandbox: SANDBOXED,
    addedRules: added,
  });
}

function added(command: string): AddedRule {
  return {
    id: 'rul_never',
    words: command.split(' '),
    deviceId: 'dev',
    deviceName: 'Test iPhone',
    addedAt: 1,
  };
}

describe('no rule is offered, and none allows, a call whose effect a file or a named program decides', () => {
  it.each([
    'Python3 x.py',
    'NODE x.js',
    'python3.12 x.py',
    'node20 x.js',
    'find src -newer PYTHON3',
    'java Main',
    'vim -S x.vim',
    'emacs --script x.el',
    'git -C repo status',
    'git -C bare status',
    'git --git-dir bare status',
    'git --work-tree repo status',
    'git init --template src',
    'sqlite3 -init x.sql x.db',
    'crontab x.txt',
    'launchctl load x.plist',
    'clang -B src x.c',
    'zip -T -TT ls x.zip src',
    // What these write is named inside the archive or patch: `.git/hooks/pre-commit` too.
    'tar -xf x.tar',
    'tar xf x.tar',
    'tar -tf x.tar',
    'bsdtar -xf x.tar',
    'unzip x.zip',
    'ditto -x -k x.zip src',
    '7z x x.7z',
    'cpio -i',
    'pax -r -f x.pax',
    'patch -i x.diff',
    'curl -K x.cfg',
    'curl --config x.cfg',
    'wget -i x.cfg',
    'wget --config x.cfg',
    'git config core.fsmonitor ./evil',
    'git config core.hooksPath src',
    'git config include.path x.cfg',
    'git config --global core.hooksPath src',
    'git rebase -x ./evil main',
    'git bisect run ./evil',
    'git difftool -x ./evil',
    'git difftool --extcmd ./evil',
    'git submodule foreach ./evil',
    'git filter-branch --tree-filter ./evil',
    'git grep -O ./evil x',
    'git grep --open-files-in-pager ./evil x',
    'git clone -u ./evil x.bundle d',
    'git send-email --smtp-server ./evil x.mbox',
    'sort --compress-program ./evil x.txt',
    'man -P ./evil ls',
    'sftp -S ./evil host',
    'sftp -F x.cfg host',
    'git Config core.hooksPath src',
    'git-config core.hooksPath src',
    'security find-generic-password -a tether-host -s x -w',
    'security dump-keychain',
    'defaults write com.apple.x y',
    'gh auth token',
    'xar -xf x.xar',
    'aa extract -i x.aar',
    'ar -x x.a',
    'uudecode -s x.uu',
    'pkgutil --expand x.pkg d',
    'rsync -a --files-from x.txt src docs',
  ])('%s', async (command) => {
    const decision = await decide(command);
    expect(decision.decision).toBe('ask');
    expect(decision.proposal, JSON.stringify(decision.proposal)).toMatchObject({
      offered: false,
    });
    expect((await decide(command, [added(command)])).decision).toBe('ask');
  });

  // Contained by the sandbox (issue 23): a build or lint command runs code the workspace
  // supplies, which can change files of the workspace and nothing more; the offer says so.
  it.each(['Make', 'prettier --check src', 'eslint src'])(
    '%s is offered in the sandbox, saying what it still lets through',
    async (command) => {
      const decision = await decide(command);
      expect(decision.decision).toBe('ask');
      expect(decision.proposal).toMatchObject({
        offered: true,
        matches: expect.stringContaining('runs code the workspace supplies') as unknown,
      });
      expect(decision.proposal?.offered === true && decision.proposal.matches).toContain(
        'cannot read your secrets, and has no network',
      );
      expect((await decide(command, [added(command)])).decision).toBe('allow');
    },
  );

  it('still offers a rule for git -C naming a plain folder', async () => {
    const decision = await decide('git -C src status');
    expect(decision.proposal).toMatchObject({ offered: true });
  });

  it('still offers git status, git rebase main and sort -u', async () => {
    for (const command of ['git status', 'git rebase main', 'sort -u docs/guide.md']) {
      expect((await decide(command)).proposal, command).toMatchObject({ offered: true });
    }
  });

  it('warns of a config rule for git config', () => {
    const policy = PolicyConfig.parse({
      commands: { allow: [['git', 'config', 'core.hooksPath', 'src']] },
    });
    expect(allowRuleWarnings(policy, true)).toHaveLength(1);
  });
});
