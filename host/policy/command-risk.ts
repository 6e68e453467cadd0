/**
 * What Tether knows of the risk of a command as an allow rule (docs/policy.md, "Never safe
 * to allow"), in one place: the proposals of "Allow like this from now on", the check of
 * rules added from a remote, and the start-up warnings for the config's rules all ask it.
 * Every command runs in the OS sandbox, so this is a usability aid, not the boundary: it
 * keeps rules meaningful (a rule for `python` is a rule for any program) and keeps
 * rules away from programs that reach past the sandbox (the Keychain, settings).
 */
import path from 'node:path';
import { showRule, takesMoreArguments } from './command-rules.js';
import type { PolicyConfig } from './policy-config.js';

const RUNS_ITS_ARGUMENTS = 'runs the program or script its arguments name';
const RUNS_WORKSPACE_CODE = 'runs code the workspace supplies (scripts, build files, config)';
const READS_THE_KEYCHAIN =
  'reads the Keychain (secrets the host and the user keep there) or writes settings outside the workspace';
const READS_WHAT_A_FILE_NAMES =
  'reads and writes the files and URLs a config or list file it reads names (.env, .git/config among them)';
const WRITES_WHAT_IT_READS =
  'writes the files an archive or patch it reads names, .git/hooks among them, which git runs';

/** Programs whose arguments are code, or which run code the workspace supplies. */
const RISKY_PROGRAMS: ReadonlyMap<string, string> = new Map([
  ...[
    'sh',
    'bash',
    'zsh',
    'dash',
    'ksh',
    'fish',
    'csh',
    'tcsh',
    'python',
    'python3',
    'node',
    'deno',
    'bun',
    'ruby',
    'perl',
    'php',
    'lua',
    'osascript',
    'awk',
    'gawk',
    'sed',
    'env',
    'xargs',
    'sudo',
    'doas',
    'nohup',
    'nice',
    'time',
    'timeout',
    'watch',
    'exec',
    'command',
    'eval',
    'open',
    'java',
    'kotlin',
    'scala',
    'groovy',
    'jshell',
    'rscript',
    'julia',
    'tclsh',
    'wish',
    'expect',
    'pwsh',
    'powershell',
    'elixir',
    'erl',
    'escript',
    'runghc',
    'runhaskell',
    'ghci',
    'tsx',
    'ts-node',
    'vim',
    'vi',
    'nvim',
    'emacs',
    'gdb',
    'lldb',
    'ssh',
    'caffeinate',
    'arch',
    'xcrun',
    'script',
    'stdbuf',
    'flock',
    'parallel',
    'entr',
    'sandbox-exec',
    'shortcuts',
    'tmux',
    'screen',
    'busybox',
    'direnv',
    'nix-shell',
    'sqlite3',
    'psql',
    'mysql',
    'crontab',
    'launchctl',
    'at',
    'batch',
    'automator',
    'cc',
    'gcc',
    'g++',
    'c++',
    'clang',
    'clang++',
    // ssh's siblings: -S names the program they connect with, -F an ssh config whose
    // ProxyCommand runs; man's -P and -H name the pager or browser it starts.
    'sftp',
    'scp',
    'man',
    // gh runs extensions (`gh-*` programs) and aliases, and prints its token (`gh auth
    // token`); unshar runs the shell script it unpacks.
    'gh',
    'unshar',
  ].map((program) => [program, RUNS_ITS_ARGUMENTS] as const),
  // `security find-generic-password -a tether-host -s … -w` prints a Keychain item the
  // security command made, which it reads without a dialog (host/identity/security-keychain.ts);
  // `defaults write` changes settings outside the workspace.
  ...['security', 'defaults'].map((program) => [program, READS_THE_KEYCHAIN] as const),
  ...[
    'npm',
    'npx',
    'yarn',
    'pnpm',
    'pip',
    'pip3',
    'uv',
    'poetry',
    'bundle',
    'gem',
    'rake',
    'cargo',
    'go',
    'make',
    'cmake',
    'ninja',
    'just',
    'mvn',
    'gradle',
    'gradlew',
    'swift',
    'xcodebuild',
    'pytest',
    'tox',
    'vitest',
    'jest',
    'javac',
    'mix',
    'iex',
    'dotnet',
    'ant',
    'sbt',
    'bazel',
    'bazelisk',
    'meson',
    'scons',
    'composer',
    'pod',
    'fastlane',
    'brew',
    'docker',
    'docker-compose',
    'podman',
    'terraform',
    'prettier',
    'eslint',
    'vite',
    'webpack',
    'rollup',
    'mocha',
    'rspec',
    'rails',
    'phpunit',
    'nox',
    'hatch',
    'pdm',
    'pipenv',
    'conda',
    'pre-commit',
    'lefthook',
    'nix',
  ].map((program) => [program, RUNS_WORKSPACE_CODE] as const),
  // Which files these write is in the data they read, a file the model can write: a member
  // `.git/hooks/pre-commit` extracted in the workspace runs at the next `git commit`.
  ...[
    'tar',
    'bsdtar',
    'gtar',
    'gnutar',
    'unzip',
    'ditto',
    '7z',
    '7za',
    '7zr',
    '7zz',
    'unar',
    'cpio',
    'pax',
    'jar',
    'patch',
    // macOS's own archive tools, and others whose members name their paths.
    'xar',
    'aa',
    'ar',
    'uudecode',
    'unrar',
    'pkgutil',
  ].map((program) => [program, WRITES_WHAT_IT_READS] as const),
  // `curl -K x.cfg`: the config file (or URL list) it reads names what it downloads, where
  // it writes it (`output = .git/config`) and what it uploads (`upload-file = .env`).
  ...['curl', 'wget'].map((program) => [program, READS_WHAT_A_FILE_NAMES] as const),
]);

/**
 * Subcommands and options that make an otherwise plain program run code the workspace
 * supplies: `git config core.fsmonitor ./x` (or `core.hooksPath`, `include.path`) writes
 * the repository's config, a protected path, naming a program git runs at the next `git
 * status`; `git rebase -x ./x`, `git bisect run ./x`, `git difftool -x ./x`, `git
 * submodule foreach ./x`, `git grep -O ./x`, `git clone -u ./x` run the program named.
 */
const RISKY_WORDS_OF: ReadonlyMap<string, ReadonlyMap<string, string>> = new Map([
  [
    'git',
    new Map([
      ...[
        'config',
        'bisect',
        'submodule',
        'filter-branch',
        'difftool',
        'mergetool',
        'send-email',
      ].map(
        (word) => [word, `git ${word} writes git's config or runs a program it is given`] as const,
      ),
      ...['-x', '-O', '-u'].map(
        (word) =>
          [word, `git's ${word} names a program git runs (rebase -x, grep -O, clone -u)`] as const,
      ),
    ]),
  ],
]);

/**
 * The risk of the program `word` names, as the table above has it: by its name without
 * regard to case (APFS finds `Python3` as python3) and without a version (`python3.12`,
 * `node20`), which names the same program.
 */
function riskOf(word: string): { name: string; risk: string } | null {
  const name = path.basename(word).toLowerCase();
  const risk = RISKY_PROGRAMS.get(name) ?? RISKY_PROGRAMS.get(name.replace(/[\d.]+$/, ''));
  return risk === undefined ? null : { name, risk };
}

/** True when `word` names a program of the table above (`sh`, `python3`, `/usr/bin/env`). */
export function namesRiskyProgram(word: string): boolean {
  return riskOf(word) !== null;
}

/**
 * The risk of a command as a rule. `refused`: no rule may be added from a remote for it
 * (`why` says so in a sentence). `contained`: it runs code the workspace supplies (a
 * build or test command, a script named by its path), which the sandbox contains: a rule
 * may be offered, and `why` says what such a rule lets through.
 */
export type CommandRisk = { kind: 'refused' | 'contained'; why: string };

/**
 * Why `program` is risky as a rule, or null: it runs code its arguments name (refused),
 * code the workspace supplies, or is named by its path (both contained).
 */
function programRisk(program: string): CommandRisk | null {
  const risky = riskOf(program);
  if (risky?.risk === RUNS_WORKSPACE_CODE) {
    return { kind: 'contained', why: `${risky.name} ${risky.risk}` };
  }
  if (risky !== null) {
    return {
      kind: 'refused',
      why: `${risky.name} ${risky.risk}, so a rule for it would let a model (or a file it read) run any code without asking`,
    };
  }
  if (program.includes('/')) {
    return {
      kind: 'contained',
      why: `${program} is a program named by its path, a file a change in the workspace can rewrite`,
    };
  }
  return null;
}

/**
 * The risk of the command `argv` as a rule: its program's (programRisk), or a subcommand
 * or option of its program that runs or configures a program (RISKY_WORDS_OF, refused).
 * Null when there is none.
 */
export function commandRisk(argv: readonly string[]): CommandRisk | null {
  const program = argv[0] ?? '';
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(program)) {
    return {
      kind: 'refused',
      why: `${program} is an assignment, not a program: rules never start with one (a command that runs unattended is run without a shell, where it means nothing)`,
    };
  }
  const risk = programRisk(program);
  if (risk?.kind === 'refused') return risk;
  // `git-config` is git's own name for `git config`; APFS finds `git Config`'s program too.
  const name = path.basename(program).toLowerCase();
  const [base, sub] = name.startsWith('git-') ? ['git', name.slice(4)] : [name, undefined];
  const words = RISKY_WORDS_OF.get(base);
  for (const word of [...(sub === undefined ? [] : [sub]), ...argv.slice(1)]) {
    const why = words?.get(word) ?? words?.get(word.toLowerCase());
    if (why !== undefined) {
      return {
        kind: 'refused',
        why: `${why}, so a rule for it would let a model (or a file it read) run any code without asking`,
      };
    }
  }
  return risk;
  return null;
}

/**
 * One warning line per risky allow rule of the config, naming the setting, by the same
 * judgement as rules added from a remote (commandRisk); empty when there is none. With
 * `sandboxed` false no rule applies at all (every command asks), and one line says so.
 */
export function allowRuleWarnings(policy: PolicyConfig, sandboxed: boolean): string[] {
  const warnings: string[] = [];
  if (!sandboxed && policy.commands.allow.length > 0) {
    warnings.push(
      'policy.commands.allow: no sandbox can run on this machine, so no allow rule applies and every command asks',
    );
  }
  policy.commands.allow.forEach((rule, i) => {
    const setting = `policy.commands.allow[${i}] ${JSON.stringify(rule)}`;
    const words = takesMoreArguments(rule) ? rule.slice(0, -1) : rule;
    const risk = commandRisk(words);
    if (risk?.kind === 'refused') {
      warnings.push(`${setting}: ${risk.why}`);
    } else if (risk?.kind === 'contained') {
      warnings.push(
        `${setting}: ${risk.why}; it runs in the sandbox, which still lets it change any file of the workspace but .git hooks and config`,
      );
    } else if (rule.length === 2 && takesMoreArguments(rule)) {
      const program = rule[0] ?? '';
      warnings.push(
        `${setting}: allows every subcommand of ${program} ("${showRule(rule)}"); allow the subcommands you mean instead, like ["${program}", "status"]`,
      );
    }
  });
  return warnings;
}
