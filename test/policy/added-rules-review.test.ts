/**
 * Security review of rules added from the app: calls whose exact re-run could run code
 * the workspace (or a file the model wrote) supplies must not be offered a rule, nor be
 * allowed by one. macOS finds `Python3` as python3 (APFS ignores case), and versioned
 * interpreters (`python3.12`) are the same programs; git pointed at a nested or bare
 * repository with -C or --git-dir reads that repository's config (core.fsmonitor runs a
 * program), which the cwd check alone does not see.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decidePolicy, PolicyConfig } from '../../host/policy/index.js';
import type { AddedRule, PolicyDecision } from '../../host/policy/index.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { makeRuleWorkspace } from './rule-oracle.js';
import { SANDBOXED } from '../support/sandbox.js';
import { policyCall } from '../support/policy-call.js';

let temp: TempDir;
let workspace: string;

beforeAll(async () => {
  temp = tempDir('tether-added-rules-review-');
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
    id: 'rul_review',
    words: command.split(' '),
    deviceId: 'dev',
    deviceName: 'Test iPhone',
    addedAt: 1,
  };
}

describe('no rule is offered, and none allows, a call that may run code the workspace supplies', () => {
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
});
