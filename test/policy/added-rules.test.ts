/**
 * Issue 16 item 2, "Allow like this from now on": the rule an approval card offers for a
 * call, and what that rule, once added, lets through, over generated commands with the
 * oracle of the allow-rule matcher (rule-oracle.ts, written from docs/policy.md): an
 * offered rule is the call's own words, and allows exactly the calls the matcher says
 * those words allow (the same words, nothing more), never one with an extra option, word
 * or path; no rule is offered for a call a rule could not match safely.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyConfig } from '../../host/policy/index.js';
import { decidePolicy } from '../../host/policy/testing.js';
import type { AddedRule, PolicyDecision } from '../../host/policy/index.js';
import type { PolicyConfigInput } from '../../host/policy/testing.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { documented, makeRuleWorkspace, PROGRAMS, random, WORDS } from './rule-oracle.js';
import { SANDBOXED } from '../support/sandbox.js';
import { policyCall } from '../support/policy-call.js';

let temp: TempDir;
let root: string;
let workspace: string;

beforeAll(async () => {
  temp = tempDir('tether-added-rules-');
  root = temp.path;
  workspace = await makeRuleWorkspace(root);
});
afterAll(() => temp.remove());

function decide(
  command: string,
  options: { added?: readonly AddedRule[]; policy?: PolicyConfigInput; cwd?: string } = {},
): Promise<PolicyDecision> {
  const { cwd } = options;
  return decidePolicy(
    policyCall('run_command', cwd === undefined ? { command } : { command, cwd }),
    {
      workspace,
      policy: PolicyConfig.parse(options.policy ?? {}),
      homedir: path.join(root, 'home'),
      sandbox: SANDBOXED,
      addedRules: options.added ?? [],
    },
  );
}

function added(words: readonly string[]): AddedRule {
  return { id: 'rul_test', words, deviceId: 'dev', deviceName: 'Test iPhone', addedAt: 1 };
}

/**
 * Words docs/policy.md says a rule added from the app may hold after its program: plain
 * options of letters and dashes, and plain words naming no path outside, protected, or a
 * folder holding one (a word naming no file passes: the rule lists it itself).
 */
function offerable(word: string): boolean {
  if (['-s', '--short', '-C', '--no-index'].includes(word)) return true;
  return WORDS[word] === 'plain' || WORDS[word] === 'missing';
}

/** Programs no rule is offered for: their arguments are the program they run. */
const RISKY = [['python'], ['sh'], ['node']];
/** Build and test commands: offered while the sandbox contains them (issue 23). */
const CONTAINED = [['npm', 'test'], ['make'], ['./run.sh']];

const quoted = (argv: readonly string[]) => argv.map((word) => `'${word}'`).join(' ');

describe('a rule added from the app, over generated commands', () => {
  it('is offered as the call’s own words exactly when docs/policy.md allows it, and allows nothing wider', async () => {
    const next = random(16);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const words = Object.keys(WORDS);
    let offered = 0;
    for (let i = 0; i < 150; i += 1) {
      const roll = next();
      const program = pick(roll < 0.1 ? RISKY : roll < 0.2 ? CONTAINED : PROGRAMS);
      const argv = [...program];
      const count = Math.floor(next() * 4);
      for (let j = 0; j < count; j += 1) argv.push(pick(words));
      const text = quoted(argv);
      const asked = await decide(text);
      expect(asked.decision, text).toBe('ask');
      const proposal = asked.proposal;
      const expectOffer = !RISKY.includes(program) && argv.slice(program.length).every(offerable);
      expect(proposal?.offered, `${text}: ${JSON.stringify(proposal)}`).toBe(expectOffer);
      if (proposal?.offered !== true) continue;
      offered += 1;
      expect(proposal.words).toEqual(argv);
      expect(proposal.workspace).toBe(workspace);
      const rule = [added(proposal.words)];
      expect((await decide(text, { added: rule })).decision, text).toBe('allow');
      // Other generated calls: allowed exactly when the matcher allows them under the
      // rule's words, which for a rule with no "…" means the same words.
      for (let k = 0; k < 6; k += 1) {
        const other = [...pick(PROGRAMS)];
        const more = Math.floor(next() * 4);
        for (let j = 0; j < more; j += 1) other.push(pick(words));
        const decision = await decide(quoted(other), { added: rule });
        expect(decision.decision, `${quoted(other)} under ${text}`).toBe(
          documented(other, [proposal.words]),
        );
      }
      // Never one with an extra option, word or path, nor one word fewer.
      for (const extra of [pick(words), '-x', '--all', 'src', '.', '..', '.env']) {
        const wider = await decide(quoted([...argv, extra]), { added: rule });
        expect(wider.decision, `${quoted([...argv, extra])}`).toBe('ask');
      }
      if (argv.length > 1) {
        expect((await decide(quoted(argv.slice(0, -1)), { added: rule })).decision).toBe('ask');
      }
    }
    // Both answers occur, so the property is not won by never offering.
    expect(offered).toBeGreaterThan(15);
    expect(offered).toBeLessThan(135);
  });
});

describe('no rule is offered for a call a rule could not match safely', () => {
  it.each([
    ['python x.py', 'python runs the program or script its arguments name'],
    ['ls ../', 'is outside the workspace'],
    ['cat .env', 'is a protected path'],
    ['grep -rn TODO secretdir', 'holds secretdir/.env.local, a protected path'],
    ['echo $(id)', 'contains the shell metacharacter "$"'],
    ['git status; id', 'contains the shell metacharacter ";"'],
    ['git diff --output=x', 'may carry a path or a value'],
    ['git -C.. status', 'may carry a path or a value'],
    ['git -Csrc status', 'may name src, a path here'],
    ['git show HEAD:.env', 'holds ":"'],
    ['git log -- src', 'may carry a path or a value'],
    ['ls …', 'which a rule cannot list'],
    ['find src -exec python3 x.py', 'runs a program or code it is given'],
    ['find src -newer python3', 'names a program that runs code'],
    ['tar -xf a.tar', 'writes the files an archive or patch it reads names'],
    ['git fetch --upload-pack cat origin', 'runs a program or code it is given'],
    ["grep 'a b' src", 'holds a space'],
  ])('%s', async (command, why) => {
    const decision = await decide(command);
    expect(decision.decision).toBe('ask');
    expect(decision.proposal).toMatchObject({ offered: false });
    expect(decision.proposal?.offered === false && decision.proposal.reason).toContain(why);
  });

  it('is offered for build and test commands while the sandbox contains them, and never without it', async () => {
    for (const command of ['npm test', './run-tests.sh']) {
      const decision = await decide(command);
      expect(decision.proposal, command).toMatchObject({ offered: true });
    }
    const unsandboxed = await decidePolicy(policyCall('run_command', { command: 'npm test' }), {
      workspace,
      policy: PolicyConfig.parse({}),
      homedir: path.join(root, 'home'),
      sandbox: { available: false, reason: 'bwrap is not installed', fix: 'install it' },
    });
    expect(unsandboxed.decision).toBe('ask');
    expect(unsandboxed.reason).toContain('bwrap is not installed');
    expect(unsandboxed.proposal).toMatchObject({ offered: false });
  });

  it('a command asking to write the root, the home folder or /tmp is denied (issue 23 review)', async () => {
    const ctx = {
      workspace,
      policy: PolicyConfig.parse({}),
      homedir: path.join(root, 'home'),
      sandbox: SANDBOXED,
    };
    await mkdir(path.join(root, 'home'), { recursive: true });
    for (const write of ['/', '/tmp', path.join(root, 'home')]) {
      const decision = await decidePolicy(
        policyCall('run_command', { command: 'ls', sandbox: { write: [write] } }),
        ctx,
      );
      expect(decision.decision, write).toBe('deny');
    }
    const narrow = await decidePolicy(
      policyCall('run_command', { command: 'ls', sandbox: { write: ['../outside'] } }),
      ctx,
    );
    expect(narrow.decision).toBe('ask');
    expect(narrow.reason).toContain('beyond what the sandbox allows');
  });

  it('nor in a protected folder, a nested repository, outside, or for another tool', async () => {
    for (const cwd of ['.git', 'repo', 'bare', '../outside']) {
      const decision = await decide('ls', { cwd });
      expect(decision.proposal, cwd).toMatchObject({ offered: false });
    }
    const write = await decidePolicy(
      policyCall('write_file', { path: 'src/b.ts', content: 'x', expectedSha256: null }),
      {
        workspace,
        policy: PolicyConfig.parse({}),
        homedir: path.join(root, 'home'),
        sandbox: SANDBOXED,
      },
    );
    expect(write.decision).toBe('ask');
    expect(write.proposal).toMatchObject({ offered: false });
    expect(write.proposal?.offered === false && write.proposal.reason).toContain('commands only');
  });

  it('nor when the config file asks before every command, which also switches added rules off', async () => {
    const policy = { tools: { run_command: 'ask' as const } };
    const decision = await decide('ls -a src', { policy });
    expect(decision.proposal).toMatchObject({ offered: false });
    const rule = [added(['ls', '-a', 'src'])];
    expect((await decide('ls -a src', { policy, added: rule })).decision).toBe('ask');
  });
});

describe('the config file keeps the last word', () => {
  it('a config deny beats an added rule', async () => {
    const rule = [added(['ls', '-a', 'src'])];
    const policy = { commands: { deny: [['ls']] } };
    expect((await decide('ls -a src', { policy, added: rule })).decision).toBe('deny');
  });

  it('an added rule’s words are checked again in each folder, and its program again', async () => {
    const rule = [added(['cat', 'a.ts'])];
    expect((await decide('cat a.ts', { added: rule, cwd: 'src' })).decision).toBe('allow');
    // From the root a.ts names no file: it passes, as a word naming no file does.
    expect((await decide('cat a.ts', { added: rule })).decision).toBe('allow');
    const link = [added(['cat', 'link-env'])];
    expect((await decide('cat link-env', { added: link })).decision).toBe('ask');
    for (const cwd of ['.git', 'repo', 'bare']) {
      expect((await decide('cat a.ts', { added: rule, cwd })).decision, cwd).toBe('ask');
    }
    const risky = [added(['python', 'x.py'])];
    expect((await decide('python x.py', { added: risky })).decision).toBe('ask');
  });

  it('says which rule allowed the call', async () => {
    const decision = await decide('ls -a src', { added: [added(['ls', '-a', 'src'])] });
    expect(decision).toMatchObject({
      decision: 'allow',
      allowedBy: { ruleId: 'rul_test', words: ['ls', '-a', 'src'], deviceName: 'Test iPhone' },
    });
  });
});
