/**
 * What an allow rule matches (docs/policy.md, "Command rules"): exactly its words, and more
 * words only where the rule ends in `…`, and even then never an option or an assignment.
 * The paths those extra words name are policy's next check (decide-policy.ts).
 */

/** The last word of a rule that lets a command take more plain arguments. */
export const MORE_ARGUMENTS_WORDS: readonly string[] = ['…', '...'];

/** How one command compares with one allow rule. */
export type RuleMatch =
  | { kind: 'match'; rule: readonly string[]; extra: string[] }
  /** The command starts with the rule's words but goes beyond what the rule allows. */
  | { kind: 'beyond'; rule: readonly string[]; why: string }
  | { kind: 'none' };

/** True when the rule ends in `…`. */
export function takesMoreArguments(rule: readonly string[]): boolean {
  return MORE_ARGUMENTS_WORDS.includes(rule[rule.length - 1] ?? '');
}

/** A rule as people read it: `git log …`. */
export function showRule(rule: readonly string[]): string {
  return rule.join(' ');
}

/**
 * Why `word` cannot be an extra argument of an open rule, or null when it is a plain one:
 * an option (`-x`, `--x`, `--x=y`, `--`, and `+x`, which some programs read as one), an
 * assignment (`x=y`: make, dd and env read those), or a word with `:` (git reads
 * `HEAD:.env` as a file of a commit, scp and rsync read `host:path`).
 */
function notPlainArgument(word: string): string | null {
  if (word.startsWith('-') || word.startsWith('+')) return `${word} is an option`;
  if (word.includes('=')) return `${word} is an assignment (it holds "=")`;
  if (word.includes(':')) return `${word} holds ":", which some programs read as a reference`;
  if (word === '') return 'an empty word is not a plain argument';
  return null;
}

/** Compares a command's words with one allow rule. */
function matchRule(argv: readonly string[], rule: readonly string[]): RuleMatch {
  const open = takesMoreArguments(rule);
  const fixed = open ? rule.slice(0, -1) : rule;
  if (argv.length < fixed.length || fixed.some((word, i) => argv[i] !== word)) {
    return { kind: 'none' };
  }
  const extra = argv.slice(fixed.length);
  if (!open) {
    if (extra.length === 0) return { kind: 'match', rule, extra };
    return {
      kind: 'beyond',
      rule,
      why: `the rule "${showRule(rule)}" allows exactly those words, and the command adds ${extra.join(' ')}`,
    };
  }
  for (const word of extra) {
    const why = notPlainArgument(word);
    if (why !== null) {
      return {
        kind: 'beyond',
        rule,
        why: `the rule "${showRule(rule)}" allows more plain arguments only, and ${why}`,
      };
    }
  }
  return { kind: 'match', rule, extra };
}

/**
 * The first rule that matches, else the first the command goes beyond (its reason says
 * why it asks), else none.
 */
export function findRule(
  argv: readonly string[],
  rules: readonly (readonly string[])[],
): RuleMatch {
  let beyond: RuleMatch = { kind: 'none' };
  for (const rule of rules) {
    const match = matchRule(argv, rule);
    if (match.kind === 'match') return match;
    if (match.kind === 'beyond' && beyond.kind === 'none') beyond = match;
  }
  return beyond;
}
