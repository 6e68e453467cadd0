/**
 * Issue 11, finding 1 (options turn an allow rule into code execution): the allow-rule
 * matcher against its documented semantics (docs/policy.md, "Command rules") over
 * generated commands, and each attack of the finding by name.
 *
 * The oracle (rule-oracle.ts) is written from the document, not from the code: a command runs
 * unasked only when a rule's words are its words, and any more words come after a rule
 * ending in "…", none an option, assignment or `ref:path`, each naming a path inside the
 * workspace that is neither protected nor a folder holding a protected path (for git, a
 * path that exists).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { allowRuleWarnings, PolicyConfig } from '../../host/policy/index.js';
import { decidePolicy } from '../../host/policy/testing.js';
import type { PolicyDecision } from '../../host/policy/index.js';
import type { PolicyConfigInput } from '../../host/policy/testing.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { documented, makeRuleWorkspace, PROGRAMS, random, WORDS } from './rule-oracle.js';
import { SANDBOXED } from '../support/sandbox.js';
import { policyCall } from '../support/policy-call.js';

let temp: TempDir;
let root: string;
let workspace: string;

beforeAll(async () => {
  temp = tempDir('tether-rules-');
  root = temp.path;
  workspace = await makeRuleWorkspace(root);
});
afterAll(() => temp.remove());

function decide(command: string, policy: PolicyConfigInput, cwd?: string): Promise<PolicyDecision> {
  return decidePolicy(
    policyCall('run_command', cwd === undefined ? { command } : { command, cwd }),
    {
      workspace,
      policy: PolicyConfig.parse(policy),
      homedir: path.join(root, 'home'),
      sandbox: SANDBOXED,
    },
  );
}

const RULES: string[][] = [['git', 'diff'], ['git', 'log', '…'], ['cat', '…'], ['ls']];

describe('allow rules over generated commands', () => {
  it('decide as docs/policy.md says, for 600 commands', async () => {
    const next = random(11);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const words = Object.keys(WORDS);
    let allowed = 0;
    for (let i = 0; i < 600; i += 1) {
      const argv = [...pick(PROGRAMS)];
      const count = Math.floor(next() * 4);
      for (let j = 0; j < count; j += 1) argv.push(pick(words));
      const text = argv.map((word) => `'${word}'`).join(' ');
      const decision = await decide(text, { commands: { allow: RULES } });
      expect(decision.decision, `${text}: ${decision.reason}`).toBe(documented(argv, RULES));
      if (decision.decision === 'allow') allowed += 1;
    }
    // Both answers occur, so the property is not won by always asking.
    expect(allowed).toBeGreaterThan(60);
    expect(allowed).toBeLessThan(540);
  });
});

describe('issue 11 finding 1: options turn an allow rule into code execution', () => {
  const examplePolicy = {
    commands: {
      allow: [
        ['git', 'status'],
        ['git', 'diff'],
        ['npm', 'test'],
      ],
    },
  };
  const attacks = [
    'npm test --node-options=--import=data:text/javascript,process.exit(9)',
    'npm test -- --require ./evil.js',
    'git diff --output=src/a.ts',
    'git diff --no-index secretdir .',
    'git -C ../outside status',
    'git -c core.pager=sh diff',
    'git diff --ext-diff',
    'git status --porcelain -uall',
  ];
  it.each(attacks)('the rules of the old docs example ask for: %s', async (attack) => {
    expect((await decide(attack, examplePolicy)).decision).toBe('ask');
  });

  const openPolicy = {
    commands: {
      allow: [
        ['git', 'diff', '…'],
        ['find', '…'],
        ['make', '…'],
        ['cargo', 'build', '…'],
        ['grep', '-rn', 'TODO', '…'],
      ],
    },
  };
  const openAttacks = [
    'find . -exec sh -c id ;',
    'find src -delete',
    'make -f ../outside/x',
    'make CC=evil',
    'cargo build --config build.rustc-wrapper=./evil',
    'git diff --output=x',
    'git diff HEAD:.env',
    'git diff .env',
    'grep -rn TODO .',
    'grep -rn TODO secretdir',
    'grep -rn TODO link-out',
    'grep -rn TODO /etc',
    'git diff 4b825dc642cb6eb9a060e54bf8d69288fbee4904 HEAD',
    'git diff HEAD^!',
    'git diff main',
  ];
  it.each(openAttacks)('an open rule never lets through: %s', async (attack) => {
    expect((await decide(attack, openPolicy)).decision).toBe('ask');
  });

  it('an open rule still runs what it was written for', async () => {
    for (const ok of ['git diff', 'git diff src', 'grep -rn TODO src docs', 'find src']) {
      expect((await decide(ok, openPolicy)).decision, ok).toBe('allow');
    }
  });

  it('never in a protected folder, a nested repository or a bare-repository layout', async () => {
    const policy = { commands: { allow: [['git', 'status']] } };
    expect((await decide('git status', policy)).decision).toBe('allow');
    expect((await decide('git status', policy, 'src')).decision).toBe('allow');
    for (const cwd of ['.git', '.git/hooks', 'repo', 'bare', 'bare/refs', 'bare-link']) {
      const decision = await decide('git status', policy, cwd);
      expect(decision.decision, `${cwd}: ${decision.reason}`).toBe('ask');
    }
    expect((await decide('git status', policy, 'bare')).reason).toContain(
      'a repository of its own whose config could make git run a program',
    );
  });
});

describe("issue 11 finding 7: docs/policy.md's example is safe as written", () => {
  const docs = readFileSync(new URL('../../docs/policy.md', import.meta.url), 'utf8');
  const example = /```json\n([\s\S]*?)```/.exec(docs)?.[1];
  const policy = z.object({ policy: PolicyConfig }).parse(JSON.parse(example ?? 'null')).policy;

  it('parses, and the host has no warning about any of its rules', () => {
    expect(policy.commands.allow.length).toBeGreaterThan(0);
    expect(allowRuleWarnings(policy, true)).toEqual([]);
  });

  it('asks for every attack of finding 1, and runs what its rules name', async () => {
    const attacks = [
      'git status --porcelain --ignored',
      'git diff --output=src/a.ts',
      'git diff --no-index secretdir .',
      'git -C ../outside status',
      'git -c core.pager=sh diff',
      'git log --oneline -p',
      'git log --oneline --output=x',
      'git log --oneline HEAD:.env',
      'git log --oneline .env',
      'git log --oneline secretdir',
      'git log --oneline HEAD^!',
      'git log --oneline 4b825dc642cb6eb9a060e54bf8d69288fbee4904',
    ];
    for (const attack of attacks) {
      expect((await decide(attack, policy)).decision, attack).not.toBe('allow');
    }
    for (const ok of [
      'git status',
      'git diff',
      'git log --oneline',
      'git log --oneline src docs',
    ]) {
      expect((await decide(ok, policy)).decision, ok).toBe('allow');
    }
  });

  it('warns about the rules this issue found unsafe', () => {
    const risky = PolicyConfig.parse({
      commands: {
        allow: [['npm', 'test'], ['make'], ['git', '…'], ['./test.sh'], ['git', 'status']],
      },
    });
    const warnings = allowRuleWarnings(risky, true);
    expect(warnings).toHaveLength(4);
    expect(warnings[0]).toMatch(
      /^policy\.commands\.allow\[0\] \["npm","test"\]: npm runs code the workspace supplies/,
    );
    expect(warnings[2]).toContain('allows every subcommand of git');
  });
});
