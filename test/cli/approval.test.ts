/**
 * `tether remote approve` / `deny` in-process against the fake host of the client tests,
 * with approvals the test constructs (a digest that does not match what the approval
 * shows is one a real host never sends): what is shown, the digest recomputed and sent,
 * a mismatched digest refused unanswered, and `--host` with two hosts.
 */
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Approval, digest } from '../../protocol/index.js';
import type { WebSocketFactory } from '../../remote/client/index.js';
import { runRemoteCli } from '../../remote/cli/main.js';
import { FakeHost } from '../client/fake-host.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

/** The fake host, with pending approvals in its snapshot and answers to `approval.respond`. */
class ApprovingHost extends FakeHost {
  pending: Approval[] = [];

  override snapshot(): object {
    return { ...super.snapshot(), pendingApprovals: this.pending };
  }

  override handle(op: string, args: Record<string, unknown>, deviceId: string): object {
    if (op !== 'approval.respond') return super.handle(op, args, deviceId);
    this.requests.push({ op, args });
    return { status: args['decision'] === 'approve' ? 'approved' : 'denied' };
  }

  responses(): Record<string, unknown>[] {
    return this.requests.filter((r) => r.op === 'approval.respond').map((r) => r.args);
  }
}

const WORKSPACE = '/Users/me/project';

function approval(overrides: Partial<Approval> = {}): Approval {
  const input = { command: 'npm test', cwd: '.' };
  return {
    id: 'apr_1',
    toolCallId: 'tc_1',
    runId: 'run_1',
    state: 'pending',
    name: 'run_command',
    input,
    workspace: WORKSPACE,
    inputDigest: digest({ tool: 'run_command', input, workspace: WORKSPACE }),
    preview: {
      kind: 'command',
      command: 'npm test',
      cwd: WORKSPACE,
      sandbox: { contained: true, kind: 'bwrap', writable: [WORKSPACE], network: false },
    },
    reason: 'runs a command',
    expiresAt: Date.now() + 60_000,
    decidedBy: null,
    ...overrides,
  };
}

let rootDir: TempDir;
let root: string;
let state: string;
let hosts: Map<string, ApprovingHost>;

/** Routes each socket to the fake host of its origin. */
const factory: WebSocketFactory = (url) => {
  const host = [...hosts].find(([origin]) => url.includes(origin))?.[1];
  if (host === undefined) throw new Error(`no fake host for ${url}`);
  return host.factory(url);
};

/** `tether remote <args>`; `terminal` stands for stdin when it is a terminal. */
async function cli(...args: string[]) {
  return cliOn(undefined, ...args);
}

async function cliOn(terminal: NodeJS.ReadableStream | undefined, ...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runRemoteCli([...args, '--state', state], {
    out: (text) => (stdout += text),
    err: (text) => (stderr += text),
    signal: new AbortController().signal,
    terminal,
    env: {},
    cwd: root,
    homedir: root,
    socketFactory: factory,
  });
  return { code, stdout, stderr };
}

async function pairedHost(name: string): Promise<ApprovingHost> {
  const host = new ApprovingHost();
  hosts.set(`${name}.test`, host);
  expect((await cli('pair', host.offerLink(`http://${name}.test`))).code).toBe(0);
  return host;
}

beforeEach(() => {
  rootDir = tempDir('tether-approve-', { realpath: false });
  root = rootDir.path;
  state = join(root, 'remote.json');
  hosts = new Map();
});

afterEach(() => rootDir.remove());

describe('tether remote approve / deny', () => {
  it('shows the command, where it runs and its folder, and approves with the recomputed digest', async () => {
    const host = await pairedHost('mac');
    host.pending = [approval()];
    const result = await cli('approve', 'apr_1', '--yes');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      [
        'approval apr_1: run_command wants approval (runs a command)',
        '  command: npm test',
        `  runs:    sandboxed: may change files in ${WORKSPACE}, no network, cannot read your secrets`,
        `  folder:  ${WORKSPACE}`,
        `  workspace: ${WORKSPACE}`,
        '  input: {"command":"npm test","cwd":"."}',
        'approved',
        '',
      ].join('\n'),
    );
    expect(host.responses()).toEqual([
      {
        commandId: expect.any(String) as string,
        approvalId: 'apr_1',
        toolCallId: 'tc_1',
        inputDigest: approval().inputDigest,
        decision: 'approve',
      },
    ]);
  });

  it('shows the diff of a write and denies with a note', async () => {
    const host = await pairedHost('mac');
    const input = { path: 'a.txt', content: 'new\n', expectedSha256: null };
    host.pending = [
      approval({
        name: 'write_file',
        input,
        inputDigest: digest({ tool: 'write_file', input, workspace: WORKSPACE }),
        preview: {
          kind: 'write',
          path: 'a.txt',
          diff: '-old\n+new',
          baseSha256: null,
          newSha256: 'a'.repeat(64),
        },
      }),
    ];
    const result = await cli('deny', 'apr_1', '--note', 'not now');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `  writes:  a.txt\n  real path: ${WORKSPACE}/a.txt\n  │ -old\n  │ +new\n`,
    );
    expect(result.stdout.endsWith('denied\n')).toBe(true);
    expect(host.responses()).toMatchObject([{ decision: 'deny', note: 'not now' }]);
  });

  it('refuses, without answering, an approval whose digest is not of what it shows', async () => {
    const host = await pairedHost('mac');
    const other = { command: 'rm -rf ~', cwd: '.' };
    host.pending = [
      approval({
        inputDigest: digest({ tool: 'run_command', input: other, workspace: WORKSPACE }),
      }),
    ];
    const result = await cli('approve', 'apr_1', '--yes');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('  command: npm test');
    expect(result.stderr).toMatch(
      /^tether remote approve: approval apr_1 is not for what it shows .*\[digest_mismatch\]\n$/,
    );
    expect(host.responses()).toEqual([]);
  });

  it('asks for --host when paired with several hosts, and uses the one named', async () => {
    await pairedHost('mac');
    const mini = await pairedHost('mini');
    mini.pending = [approval()];
    const ambiguous = await cli('approve', 'apr_1', '--yes');
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain('paired with 2 hosts: pick one with --host HOSTID');
    expect(ambiguous.stderr).toContain(`${mini.identity.id}  Fake Mac  http://mini.test`);

    const chosen = await cli('approve', 'apr_1', '--yes', '--host', mini.identity.id);
    expect(chosen.code).toBe(0);
    expect(mini.responses()).toHaveLength(1);
  });

  it('refuses to approve without a terminal to confirm on and without --yes', async () => {
    const host = await pairedHost('mac');
    host.pending = [approval()];
    const result = await cli('approve', 'apr_1');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('  command: npm test\n');
    expect(result.stdout).not.toContain('Approve?');
    expect(result.stderr).toBe(
      'tether remote approve: not approved: stdin is not a terminal, so nobody can confirm; ' +
        'read the card above and pass --yes to approve it\n',
    );
    expect(host.responses()).toEqual([]);
  });

  it('asks "Approve? [y/N]" on a terminal and approves only on y or yes', async () => {
    const host = await pairedHost('mac');
    host.pending = [approval()];
    for (const answer of ['n\n', '\n', 'yes please\n', '']) {
      const result = await cliOn(Readable.from([answer]), 'approve', 'apr_1');
      expect(result, JSON.stringify(answer)).toMatchObject({
        code: 1,
        stderr: 'tether remote approve: not approved (only y or yes approves)\n',
      });
      expect(result.stdout.endsWith('Approve? [y/N] ')).toBe(true);
    }
    expect(host.responses()).toEqual([]);
    for (const answer of ['y\n', ' YES \n']) {
      const result = await cliOn(Readable.from([answer]), 'approve', 'apr_1');
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain('  command: npm test\n');
      expect(result.stdout.endsWith('Approve? [y/N] approved\n')).toBe(true);
    }
    expect(host.responses()).toMatchObject([{ decision: 'approve' }, { decision: 'approve' }]);
  });

  it('denies without asking: denying is always safe', async () => {
    const host = await pairedHost('mac');
    host.pending = [approval()];
    const result = await cli('deny', 'apr_1');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).not.toContain('Approve?');
    expect(host.responses()).toMatchObject([{ decision: 'deny' }]);
    const yes = await cli('deny', 'apr_1', '--yes');
    expect(yes.code).toBe(2);
    expect(yes.stderr).toContain('unknown option --yes');
  });
});
