/**
 * Attack review (attack3): calls that were offered "Allow like this from now on" and,
 * with the rule added, ran unasked, though what they do is named by a file the model can
 * write or by a program the rule names:
 * - `curl -K x.cfg` / `wget -i x.cfg`: the config names what it writes (`output =
 *   .git/config`) and uploads (`upload-file = .env`);
 * - `git config core.fsmonitor ./x` (core.hooksPath, include.path): writes .git/config, a
 *   protected path, naming a program the next `git status` runs;
 * - `git rebase -x ./x`, `git bisect run ./x`, `git difftool -x ./x`, `git submodule
 *   foreach ./x`, `git grep -O ./x`, `git clone -u ./x`, `sort --compress-program ./x`,
 *   `man -P ./x`, `sftp -S ./x`, `sftp -F x.cfg` (ProxyCommand): run the script named,
 *   whose text the model rewrites after the rule is added.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decidePolicy, PolicyConfig } from '../../host/policy/index.js';
import type { AddedRule, PolicyDecision } from '../../host/policy/index.js';
import { allowRuleWarnings } from '../../host/policy/command-risk.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { makeRuleWorkspace } from './rule-oracle.js';
import { SANDBOXED } from '../support/sandbox.js';
import { policyCall } from '../support/policy-call.js';

let temp: TempDir;
let workspace: string;

beforeAll(async () => {
  temp = tempDir('tether-attack3-rules-');
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
    id: 'rul_a3',
    words: command.split(' '),
    deviceId: 'dev',
    deviceName: 'Phone',
    addedAt: 1,
  };
}

describe('attack3: no rule for a call whose effect a workspace file or a named program decides', () => {
  it.each([
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
