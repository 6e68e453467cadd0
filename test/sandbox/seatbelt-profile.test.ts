/**
 * The macOS sandbox's profile, read as SBPL: a small reader in this file turns the text
 * into s-expressions, so each check is on the rule structure (which operation, which
 * filter, which parameter, in which order), never on a substring. The paths themselves
 * travel as `-D` parameters, so tricky paths are checked to leave the text unchanged.
 * Where /usr/bin/sandbox-exec exists (macOS), real commands run in the sandbox.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seatbeltCommand, seatbeltProfile } from '../../host/sandbox/testing.js';
import type { SandboxPlan } from '../../host/sandbox/testing.js';
import { tempDir } from '../support/temp-dir.js';

/** An SBPL value: a symbol or number, a string (`"…"` or a `#"…"` regex), or a list. */
type Sexp = string | { text: string } | Sexp[];

function readSbpl(source: string): Sexp[] {
  const tokens: ({ text: string } | string)[] = [];
  let at = 0;
  while (at < source.length) {
    const char = source[at]!;
    if (/\s/.test(char)) {
      at += 1;
    } else if (char === ';') {
      while (at < source.length && source[at] !== '\n') at += 1;
    } else if (char === '(' || char === ')') {
      tokens.push(char);
      at += 1;
    } else if (char === '"' || source.startsWith('#"', at)) {
      at += char === '"' ? 1 : 2;
      let text = '';
      while (source[at] !== '"') {
        if (at >= source.length) throw new Error('unterminated string');
        if (source[at] === '\\') at += 1;
        text += source[at];
        at += 1;
      }
      tokens.push({ text });
      at += 1;
    } else {
      const atom = /^[^\s()";]+/.exec(source.slice(at))![0];
      tokens.push(atom);
      at += atom.length;
    }
  }
  const stack: Sexp[][] = [[]];
  for (const token of tokens) {
    if (token === '(') {
      stack.push([]);
    } else if (token === ')') {
      const list = stack.pop();
      if (list === undefined || stack.length === 0) throw new Error('unbalanced )');
      stack.at(-1)!.push(list);
    } else {
      stack.at(-1)!.push(token);
    }
  }
  if (stack.length !== 1) throw new Error('unbalanced (');
  return stack[0]!;
}

interface Rule {
  /** Position among the profile's top-level forms. */
  index: number;
  action: 'allow' | 'deny';
  operations: string[];
  filters: Sexp[][];
}

interface Compiled {
  forms: Sexp[];
  rules: Rule[];
  /** The `-D` definitions, split at their first `=`. */
  parameters: Map<string, string>;
  command: string[];
}

function compile(plan: SandboxPlan, argv: readonly string[] = ['/usr/bin/true']): Compiled {
  const wrapped = seatbeltCommand(plan, argv);
  const forms = readSbpl(wrapped.args[1]!);
  const rules = forms.flatMap((form, index): Rule[] => {
    if (!Array.isArray(form) || (form[0] !== 'allow' && form[0] !== 'deny')) return [];
    const rest = form.slice(1);
    return [
      {
        index,
        action: form[0],
        operations: rest.filter((part): part is string => typeof part === 'string'),
        filters: rest.filter((part): part is Sexp[] => Array.isArray(part)),
      },
    ];
  });
  const dashes = wrapped.args.indexOf('--');
  const parameters = new Map<string, string>();
  for (const definition of wrapped.args.slice(2, dashes)) {
    expect(definition.startsWith('-D')).toBe(true);
    const equals = definition.indexOf('=');
    parameters.set(definition.slice(2, equals), definition.slice(equals + 1));
  }
  return { forms, rules, parameters, command: wrapped.args.slice(dashes + 1) };
}

/** The value a `(kind (param "NAME"))` filter stands for, or undefined. */
function filterValue(compiled: Compiled, filter: Sexp[], kind: string): string | undefined {
  const [head, argument] = filter;
  if (head !== kind || !Array.isArray(argument) || argument[0] !== 'param') return undefined;
  const name = argument[1];
  if (typeof name !== 'object' || Array.isArray(name)) return undefined;
  return compiled.parameters.get(name.text);
}

/** The rules of `action` on `operation` with a `(kind (param …))` filter for `value`. */
function rulesFor(
  compiled: Compiled,
  action: 'allow' | 'deny',
  operation: string,
  kind: string,
  value: string,
): Rule[] {
  return compiled.rules.filter(
    (rule) =>
      rule.action === action &&
      rule.operations.includes(operation) &&
      rule.filters.some((filter) => filterValue(compiled, filter, kind) === value),
  );
}

/** Every string inside a form, at any depth. */
function strings(form: Sexp): string[] {
  if (typeof form === 'string') return [];
  if (!Array.isArray(form)) return [form.text];
  return form.flatMap(strings);
}

function lastAllow(compiled: Compiled): number {
  return Math.max(...compiled.rules.filter((rule) => rule.action === 'allow').map((r) => r.index));
}

const plan: SandboxPlan = {
  gitReadOnly: [],
  workspace: '/Users/me/ws',
  writable: ['/Users/me/ws', '/Users/me/approved'],
  tempDir: '/private/var/folders/ab/T/tether-call-1',
  readOnly: ['/Users/me/ws/.git/hooks', '/Users/me/ws/.git/config', '/Users/me/ws/.git/info'],
  hidden: [
    { path: '/Users/me/.ssh', type: 'dir' },
    { path: '/Users/me/ws/.env', type: 'file' },
  ],
  replaced: [{ path: '/Users/me/ws/lib/.git/config', content: '[core]\n\tbare = false\n' }],
  hiddenPatterns: ['/\\.env(\\.[^/]*)?$', '/id_(rsa|ed25519)$'],
  network: false,
  proxyPort: null,
  home: null,
  pinned: [],
  programFolders: [],
};

/** What a profile allows with no filter at all: anything more would be a hole. */
const UNFILTERED_ALLOWS = [
  'file-read*',
  'ipc-posix-sem',
  'mach-host*',
  'process-exec',
  'process-fork',
  'pseudo-tty',
  'user-preference-read',
];

describe('seatbeltProfile', () => {
  it('starts closed and opens nothing wholesale but reads, processes and system facts', () => {
    for (const network of [false, true]) {
      const compiled = compile({ ...plan, network });
      expect(compiled.forms.slice(0, 2)).toEqual([
        ['version', '1'],
        ['deny', 'default'],
      ]);
      const unfiltered = compiled.rules
        .filter((rule) => rule.action === 'allow' && rule.filters.length === 0)
        .flatMap((rule) => rule.operations)
        .sort();
      expect(unfiltered).toEqual(
        network ? [...UNFILTERED_ALLOWS, 'system-socket'].sort() : UNFILTERED_ALLOWS,
      );
      expect(
        compiled.rules.some((r) => r.action === 'allow' && r.operations.includes('default')),
      ).toBe(false);
    }
  });

  it('allows writes under each writable folder and the temporary folder, nowhere else', () => {
    const compiled = compile(plan);
    for (const folder of [...plan.writable, plan.tempDir]) {
      expect(rulesFor(compiled, 'allow', 'file-write*', 'subpath', folder)).toHaveLength(1);
    }
    const writeFilters = compiled.rules
      .filter((r) => r.action === 'allow' && r.operations.includes('file-write*'))
      .flatMap((r) => r.filters);
    const folders = writeFilters.flatMap(
      (filter) => filterValue(compiled, filter, 'subpath') ?? [],
    );
    expect(folders.sort()).toEqual([...plan.writable, plan.tempDir].sort());
    // The rest of the write rules are fixed devices and the command's own ptys.
    const devices = compiled.rules
      .filter((r) => r.action === 'allow' && r.operations.some((op) => op.startsWith('file-write')))
      .flatMap((r) => r.filters.flatMap(strings));
    for (const device of devices)
      expect(device).toMatch(/^(\/dev\/|\^\/dev\/|com\.apple|WRITABLE_|TEMP_DIR_)/);
  });

  it('denies writes and hard links to each read-only path, after every allow', () => {
    const compiled = compile(plan);
    for (const path of plan.readOnly) {
      const [deny, ...more] = rulesFor(compiled, 'deny', 'file-write*', 'subpath', path);
      expect(more).toEqual([]);
      expect(deny!.operations).toContain('file-link');
      expect(deny!.index).toBeGreaterThan(lastAllow(compiled));
    }
  });

  it('denies reading, writing, linking and cloning hidden files (literal) and folders (subpath)', () => {
    const compiled = compile(plan);
    for (const { path, type } of plan.hidden) {
      const kind = type === 'dir' ? 'subpath' : 'literal';
      const [deny] = rulesFor(compiled, 'deny', 'file-read*', kind, path);
      expect(deny?.operations).toEqual(['file-read*', 'file-write*', 'file-link', 'file-clone']);
      expect(deny!.index).toBeGreaterThan(lastAllow(compiled));
    }
  });

  it('hides a replaced file, since Seatbelt cannot show other content', () => {
    const compiled = compile(plan);
    const [deny] = rulesFor(compiled, 'deny', 'file-read*', 'literal', plan.replaced[0]!.path);
    expect(deny?.operations).toEqual(['file-read*', 'file-write*', 'file-link', 'file-clone']);
    expect(deny!.index).toBeGreaterThan(lastAllow(compiled));
  });

  it('denies every hidden pattern as a regex, exactly as given, after every allow', () => {
    const compiled = compile(plan);
    for (const pattern of plan.hiddenPatterns) {
      const [deny] = rulesFor(compiled, 'deny', 'file-read*', 'regex', pattern);
      expect(deny?.operations).toEqual(['file-read*', 'file-write*', 'file-link', 'file-clone']);
      expect(deny!.index).toBeGreaterThan(lastAllow(compiled));
    }
  });

  it('pins every folder above a protected path against rename and removal', () => {
    const compiled = compile(plan);
    const pins = compiled.rules
      .filter((r) => r.action === 'deny' && r.operations.includes('file-write-unlink'))
      .flatMap((r) =>
        r.filters.flatMap((filter) => filterValue(compiled, filter, 'literal') ?? []),
      );
    expect(pins.sort()).toEqual(
      [
        '/Users',
        '/Users/me',
        '/Users/me/ws',
        '/Users/me/ws/.git',
        '/Users/me/ws/lib',
        '/Users/me/ws/lib/.git',
      ].sort(),
    );
  });

  it('has no network, loopback and unix sockets included, when the plan has none', () => {
    const compiled = compile(plan);
    const network = compiled.rules.filter((r) =>
      r.operations.some((op) => op.startsWith('network') || op === 'system-socket'),
    );
    expect(network).toEqual([]);
    const services = compiled.rules
      .filter((r) => r.operations.includes('mach-lookup'))
      .flatMap((r) => r.filters.flatMap(strings));
    expect(services).not.toContain('com.apple.dnssd.service');
    expect(services).not.toContain('com.apple.SystemConfiguration.configd');
  });

  it('with the network: IP both ways and DNS, no other unix socket, never the Keychain', () => {
    const compiled = compile({ ...plan, network: true });
    const allowed = (operation: string) =>
      compiled.rules
        .filter((r) => r.action === 'allow' && r.operations.includes(operation))
        .flatMap((r) => r.filters);
    expect(allowed('network-outbound')).toEqual([
      ['remote', 'ip', { text: '*:*' }],
      ['remote', 'unix-socket', ['subpath', { text: '/private/var/run/mDNSResponder' }]],
    ]);
    expect(allowed('network-inbound')).toEqual([['local', 'ip', { text: '*:*' }]]);
    const services = allowed('mach-lookup').flatMap(strings);
    expect(services).toContain('com.apple.dnssd.service');
    for (const network of [false, true]) {
      const lookups = compile({ ...plan, network })
        .rules.filter((r) => r.operations.includes('mach-lookup'))
        .flatMap((r) => r.filters.flatMap(strings));
      expect(lookups.filter((name) => /SecurityServer|securityd|secd/i.test(name))).toEqual([]);
    }
  });

  it("with the host's proxy: one loopback port out, nothing in, no DNS, no other socket", () => {
    const compiled = compile({ ...plan, proxyPort: 40123 });
    const network = compiled.rules.filter((r) =>
      r.operations.some((op) => op.startsWith('network') || op === 'system-socket'),
    );
    expect(network.map((r) => [r.action, r.operations, r.filters])).toEqual([
      ['allow', ['network-outbound'], [['remote', 'ip', { text: 'localhost:40123' }]]],
    ]);
    const services = compiled.rules
      .filter((r) => r.operations.includes('mach-lookup'))
      .flatMap((r) => r.filters.flatMap(strings));
    expect(services).not.toContain('com.apple.dnssd.service');
    // The port is the only value written into the text: a number, checked.
    expect(() => compile({ ...plan, proxyPort: 0 })).toThrow('not a proxy port');
    expect(() => compile({ ...plan, proxyPort: 1.5 })).toThrow('not a proxy port');
  });

  it('keeps tricky paths out of the profile text: they are parameters, byte for byte', () => {
    const tricky = [
      '/Users/me/ws ")(allow default)(',
      '/tmp/quote"q',
      '/tmp/back\\slash\\',
      '/tmp/ünïcødé 🐚 dir',
      '/tmp/new\nline',
      '/tmp/semi;colon (paren) #"regex"',
      '/tmp/eq=sign=twice',
    ];
    const trickyPlan: SandboxPlan = {
      ...plan,
      workspace: tricky[0]!,
      writable: [tricky[0]!, tricky[1]!],
      tempDir: tricky[2]!,
      readOnly: [`${tricky[0]!}/.git/hooks`],
      hidden: [
        { path: tricky[3]!, type: 'dir' },
        { path: tricky[4]!, type: 'file' },
      ],
      replaced: [{ path: tricky[5]!, content: '' }],
      hiddenPatterns: [tricky[6]!, '")(allow default)(\\"'],
    };
    // The same plan with each path segment and pattern renamed to letters and digits.
    const names = new Map<string, string>();
    const rename = (part: string) =>
      names.get(part) ?? names.set(part, `n${names.size}`).get(part)!;
    const plain = (path: string) =>
      path
        .split('/')
        .map((part) => part && rename(part))
        .join('/');
    const plainPlan: SandboxPlan = {
      ...trickyPlan,
      workspace: plain(trickyPlan.workspace),
      writable: trickyPlan.writable.map(plain),
      tempDir: plain(trickyPlan.tempDir),
      readOnly: trickyPlan.readOnly.map(plain),
      hidden: trickyPlan.hidden.map(({ path, type }) => ({ path: plain(path), type })),
      replaced: trickyPlan.replaced.map(({ path }) => ({ path: plain(path), content: '' })),
      hiddenPatterns: trickyPlan.hiddenPatterns.map(rename),
    };
    expect(seatbeltProfile(trickyPlan)).toBe(seatbeltProfile(plainPlan));
    const compiled = compile(trickyPlan);
    expect(
      compiled.rules.filter((r) => r.action === 'allow' && r.operations.includes('default')),
    ).toEqual([]);
    expect(rulesFor(compiled, 'allow', 'file-write*', 'subpath', tricky[0]!)).toHaveLength(1);
    expect(rulesFor(compiled, 'deny', 'file-read*', 'subpath', tricky[3]!)).toHaveLength(1);
    expect(rulesFor(compiled, 'deny', 'file-read*', 'literal', tricky[4]!)).toHaveLength(1);
    expect(rulesFor(compiled, 'deny', 'file-read*', 'literal', tricky[5]!)).toHaveLength(1);
    expect(rulesFor(compiled, 'deny', 'file-read*', 'regex', tricky[6]!)).toHaveLength(1);
    expect(rulesFor(compiled, 'deny', 'file-read*', 'regex', '")(allow default)(\\"')).toHaveLength(
      1,
    );
  });
});

describe('seatbeltCommand', () => {
  it('runs /usr/bin/sandbox-exec -p <profile> -D… -- and the command untouched', () => {
    const argv = ['/bin/sh', '-c', 'echo "$1"', '--', '-p', '-Dx=y'];
    const wrapped = seatbeltCommand(plan, argv);
    expect(wrapped.file).toBe('/usr/bin/sandbox-exec');
    expect(wrapped.args.slice(0, 2)).toEqual(['-p', seatbeltProfile(plan)]);
    expect(compile(plan, argv).command).toEqual(argv);
  });

  it('defines each parameter the profile names, once, and no other', () => {
    const compiled = compile(plan);
    const named = new Set<string>();
    const visit = (form: Sexp): void => {
      if (!Array.isArray(form)) return;
      const [head, name] = form;
      if (head === 'param' && typeof name === 'object' && !Array.isArray(name))
        named.add(name.text);
      form.forEach(visit);
    };
    compiled.forms.forEach(visit);
    const definitions = seatbeltCommand(plan, ['/usr/bin/true']).args.filter((a) =>
      a.startsWith('-D'),
    );
    expect(definitions).toHaveLength(compiled.parameters.size);
    expect([...named].sort()).toEqual([...compiled.parameters.keys()].sort());
  });

  it('refuses an empty command, a relative path and a NUL byte', () => {
    expect(() => seatbeltCommand(plan, [])).toThrow(/command/);
    expect(() => seatbeltCommand({ ...plan, writable: ['ws'] }, ['/usr/bin/true'])).toThrow(
      /absolute/,
    );
    expect(() => seatbeltCommand({ ...plan, hiddenPatterns: ['a\0b'] }, ['/usr/bin/true'])).toThrow(
      /NUL/,
    );
  });
});

const onMac = existsSync('/usr/bin/sandbox-exec');
const SKIP = onMac ? '' : ' (needs macOS sandbox-exec; skipped here)';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** `sh -c script sh args…` inside the sandbox of `sandboxPlan`. */
function runSandboxed(sandboxPlan: SandboxPlan, script: string, args: string[]): Promise<Outcome> {
  const wrapped = seatbeltCommand(sandboxPlan, ['/bin/sh', '-c', script, 'sh', ...args]);
  return new Promise((resolve) => {
    execFile(wrapped.file, wrapped.args, { timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A workspace with a git folder, a secret, a pattern-matched file and a hidden folder. */
function macPlan(root: string, network: boolean): SandboxPlan {
  const workspace = join(root, 'ws');
  mkdirSync(join(workspace, '.git', 'hooks'), { recursive: true });
  mkdirSync(join(workspace, 'keys'), { recursive: true });
  mkdirSync(join(root, 'tmp'), { recursive: true });
  writeFileSync(join(workspace, 'readme'), 'readable\n');
  writeFileSync(join(workspace, 'secret.txt'), 'top secret\n');
  writeFileSync(join(workspace, '.env.local'), 'TOKEN=1\n');
  writeFileSync(join(workspace, 'keys', 'k'), 'key\n');
  writeFileSync(join(workspace, '.git', 'config'), '[remote "o"]\n\turl = https://t@x\n');
  return {
    gitReadOnly: [],
    workspace,
    writable: [workspace],
    tempDir: join(root, 'tmp'),
    readOnly: [join(workspace, '.git', 'hooks')],
    hidden: [
      { path: join(workspace, 'secret.txt'), type: 'file' },
      { path: join(workspace, 'keys'), type: 'dir' },
    ],
    replaced: [{ path: join(workspace, '.git', 'config'), content: '' }],
    hiddenPatterns: ['/\\.env(\\.[^/]*)?$'],
    network,
    proxyPort: null,
    home: null,
    pinned: [],
    programFolders: [],
  };
}

describe('seatbelt on this Mac', () => {
  it.skipIf(!onMac)(
    `writes in the workspace and its temporary folder, not beside them${SKIP}`,
    async () => {
      using root = tempDir('tether-seatbelt-');
      const sandboxPlan = macPlan(root.path, false);
      const outside = join(root.path, 'outside');
      const outcome = await runSandboxed(
        sandboxPlan,
        'echo a > "$1/made" && echo b > "$2/made" && echo wrote; echo c > "$3" && echo escaped',
        [sandboxPlan.workspace, sandboxPlan.tempDir, outside],
      );
      expect(outcome.stdout).toBe('wrote\n');
      expect(readFileSync(join(sandboxPlan.workspace, 'made'), 'utf8')).toBe('a\n');
      expect(existsSync(outside)).toBe(false);
    },
  );

  it.skipIf(!onMac)(
    `hides secrets, hidden folders, replaced files and pattern matches${SKIP}`,
    async () => {
      using root = tempDir('tether-seatbelt-');
      const sandboxPlan = macPlan(root.path, false);
      const outcome = await runSandboxed(
        sandboxPlan,
        [
          'cat "$1/readme"',
          'cat "$1/secret.txt" && echo read-secret',
          'ls "$1/keys" && echo listed-keys',
          'cat "$1/.git/config" && echo read-config',
          'cat "$1/.env.local" && echo read-env',
          'echo x > "$1/new.env" && echo wrote-env',
          'ln "$1/secret.txt" "$1/link" && cat "$1/link" && echo linked',
          'mv "$1/keys" "$1/k2" && echo moved-keys',
          'true',
        ].join('; '),
        [sandboxPlan.workspace],
      );
      expect(outcome.stdout).toBe('readable\n');
      expect(existsSync(join(sandboxPlan.workspace, 'new.env'))).toBe(false);
      expect(existsSync(join(sandboxPlan.workspace, 'keys', 'k'))).toBe(true);
    },
  );

  it.skipIf(!onMac)(
    `keeps .git/hooks read-only, also against renaming .git away${SKIP}`,
    async () => {
      using root = tempDir('tether-seatbelt-');
      const sandboxPlan = macPlan(root.path, false);
      const git = join(sandboxPlan.workspace, '.git');
      const outcome = await runSandboxed(
        sandboxPlan,
        [
          'echo ref > "$1/HEAD" && echo wrote-head',
          'echo evil > "$1/hooks/pre-commit" && echo wrote-hook',
          'mv "$1" "$1.moved" && echo moved-git',
          'true',
        ].join('; '),
        [git],
      );
      expect(outcome.stdout).toBe('wrote-head\n');
      expect(existsSync(join(git, 'hooks', 'pre-commit'))).toBe(false);
    },
  );

  it.skipIf(!onMac)(
    `refuses a loopback connection without the network, allows it with${SKIP}`,
    async () => {
      using root = tempDir('tether-seatbelt-');
      const server = createServer((_request, response) => response.end('pong'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
        const script = 'echo started; /usr/bin/curl -s -m 5 "$1"';
        const without = await runSandboxed(macPlan(root.path, false), script, [url]);
        expect(without.stdout).toBe('started\n');
        expect(without.code).not.toBe(0);
        const withNetwork = await runSandboxed(macPlan(root.path, true), script, [url]);
        expect(withNetwork.stdout).toBe('started\npong');
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    },
  );
});
