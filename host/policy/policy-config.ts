/**
 * The `policy` section of the host's config file (docs/policy.md): its schema, with every
 * default applied, and the messages a person sees when it is wrong.
 */
import { z } from 'zod';
import { MORE_ARGUMENTS_WORDS } from './command-rules.js';
import { findShellSpecial, SHELL_METACHARACTERS } from '../tools/index.js';

/** The tools policy knows by name (docs/protocol.md, the tool table). */
const POLICY_TOOL_NAMES = [
  'list_directory',
  'read_file',
  'find_files',
  'search_files',
  'write_file',
  'edit_file',
  'run_command',
] as const;

const RuleWord = z
  .string({ error: 'expected a word' })
  .min(1, { error: 'expected a non-empty word' })
  .refine((word) => findShellSpecial(word) === null, {
    error: `expected a plain word: commands holding any of ${SHELL_METACHARACTERS} or a control character are never allowed by rules`,
  });

const CommandWords = z
  .array(RuleWord, { error: 'expected a command as a list of words, like ["git", "status"]' })
  .min(1, { error: 'expected at least one word' });

const AllowRule = CommandWords.refine(
  (rule) => rule.slice(0, -1).every((word) => !MORE_ARGUMENTS_WORDS.includes(word)),
  { error: '"…" may only be the last word of a rule, like ["git", "log", "…"]' },
)
  .refine((rule) => !MORE_ARGUMENTS_WORDS.includes(rule[0] ?? ''), {
    error: 'a rule must start with the program, like ["git", "log", "…"]',
  })
  .refine((rule) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(rule[0] ?? ''), {
    error:
      'a rule must start with the program, not an assignment: a command a rule lets through runs without a shell, where NAME=value means nothing',
  });

const DenyRule = CommandWords.refine(
  (rule) => rule.every((word) => !MORE_ARGUMENTS_WORDS.includes(word)),
  { error: 'a deny rule already matches every longer command: drop the "…"' },
);

const ProtectedGlob = z
  .string({ error: 'expected a path pattern' })
  .min(1, { error: 'expected a path pattern' })
  .refine((glob) => !glob.includes('\0'), { error: 'a path pattern cannot hold a NUL byte' })
  .refine((glob) => !glob.startsWith('~') || glob.startsWith('~/'), {
    error: 'only ~/ is understood: write ~/… for your home folder, or an absolute path',
  });

/** One path the secret set lets through: exact, never a pattern. */
const AllowedSecretPath = z
  .string({ error: 'expected a path' })
  .min(1, { error: 'expected a path' })
  .refine((exact) => !exact.includes('\0'), { error: 'a path cannot hold a NUL byte' })
  .refine((exact) => !/[*?]/.test(exact), {
    error: 'expected one exact path, not a pattern: write it without * or ?',
  })
  .refine((exact) => !exact.startsWith('~') || exact.startsWith('~/'), {
    error: 'only ~/ is understood: write ~/… for your home folder, or an absolute path',
  });

/** The policy as configured; parsing fills in every default. */
export const PolicyConfig = z.strictObject(
  {
    commands: z
      .strictObject(
        {
          allow: z.array(AllowRule, { error: 'expected a list of commands' }).default([]),
          deny: z.array(DenyRule, { error: 'expected a list of commands' }).default([]),
        },
        { error: 'expected an object with allow and deny lists' },
      )
      .default({ allow: [], deny: [] }),
    outsideWorkspace: z.enum(['ask', 'deny'], { error: 'expected ask or deny' }).default('ask'),
    /**
     * In a run's own worktree (docs/worktrees.md): `allow` lets writes and sandboxed
     * commands inside it run unasked (the user's checkout changes only by a merge they
     * answer); `ask` asks as in a workspace.
     */
    worktree: z.enum(['allow', 'ask'], { error: 'expected allow or ask' }).default('allow'),
    protectedPaths: z
      .array(ProtectedGlob, { error: 'expected a list of path patterns' })
      .default([]),
    allowSecretPaths: z.array(AllowedSecretPath, { error: 'expected a list of paths' }).default([]),
    tools: z
      .partialRecord(
        z.enum(POLICY_TOOL_NAMES),
        z.enum(['allow', 'ask', 'deny'], { error: 'expected allow, ask or deny' }),
        { error: 'expected an object of tool names' },
      )
      .default({}),
  },
  { error: 'expected an object' },
);

/** The policy with its defaults applied. */
export type PolicyConfig = z.output<typeof PolicyConfig>;
/** The policy as written in the config file: every key optional. */
export type PolicyConfigInput = z.input<typeof PolicyConfig>;
